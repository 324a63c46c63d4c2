import { Button, Form, Input, Radio } from 'antd'
import type { SessionUser } from '@velo/shared'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { updateProfile, type ProfileUpdate } from '../../../api/profile'
import { sessionActions } from '../../../session/sessionStore'
import { EMAIL_PATTERN, PHONE_PATTERN } from '../../../lib/validation'
import { useFeedback } from '../../../lib/feedback'

export function BasicInfoForm({ user }: { user: SessionUser }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const queryClient = useQueryClient()
  const profileSave = useMutation({
    mutationFn: (values: ProfileUpdate) => updateProfile(values),
    onSuccess: (_answer, values) => {
      sessionActions.profileChanged(values)
      void queryClient.invalidateQueries({ queryKey: ['user', 'profile'] })
      void message.success(t('common.saveSuccess'))
    },
    // onError left out: reported by the client.
  })

  return (
    <Form<ProfileUpdate>
      layout="vertical"
      style={{ maxWidth: 480 }}
      initialValues={{ nickName: user.nickName, phone: user.phone, email: user.email, sex: user.sex || '2' }}
      onFinish={(v) => profileSave.mutate(v)}
      data-testid="profile-form"
    >
      <Form.Item name="nickName" label={t('profile.nickName')} rules={[{ required: true, whitespace: true, message: t('validation.nickNameRequired') }]}>
        <Input maxLength={64} />
      </Form.Item>
      <Form.Item
        name="phone"
        label={t('profile.phone')}
        rules={[
          // Required once given (SPEC §5); an account made without one still saves its other details.
          { required: !!user.phone, whitespace: true, message: t('validation.phoneRequired') },
          { pattern: PHONE_PATTERN, message: t('validation.phone') },
        ]}
      >
        <Input maxLength={20} />
      </Form.Item>
      <Form.Item
        name="email"
        label={t('profile.email')}
        rules={[
          { required: !!user.email, whitespace: true, message: t('validation.emailRequired') },
          { pattern: EMAIL_PATTERN, message: t('validation.email') },
        ]}
      >
        <Input maxLength={128} />
      </Form.Item>
      <Form.Item name="sex" label={t('profile.sex')}>
        <Radio.Group
          options={[
            { value: '0', label: t('profile.male') },
            { value: '1', label: t('profile.female') },
            { value: '2', label: t('profile.unknown') },
          ]}
        />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={profileSave.isPending}>
        {t('common.save')}
      </Button>
    </Form>
  )
}
