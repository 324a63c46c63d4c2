import { Avatar, Card, Descriptions, Upload } from 'antd'
import { CameraOutlined } from '@ant-design/icons'
import type { SessionUser } from '@velo/shared'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import dayjs from 'dayjs'
import { useTranslation } from 'react-i18next'
import { avatarUrl } from '../../../api/avatar'
import { uploadAvatar } from '../../../api/profile'
import { sessionActions, sessionStore } from '../../../session/sessionStore'
import { useFeedback } from '../../../lib/feedback'

const IMAGE_TYPES = ['image/jpeg', 'image/png']
const IMAGE_EXTENSIONS = /\.(jpe?g|png)$/i

/** The user's card, with the avatar upload (jpg/jpeg/png, one image) that shows the new avatar at once. */
export function ProfileCard({ user, roleGroup }: { user: SessionUser; roleGroup: string }) {
  const { t } = useTranslation()
  const { message } = useFeedback()
  const queryClient = useQueryClient()
  const avatarVersion = sessionStore.use((s) => s.avatarVersion)
  const sessionAvatar = sessionStore.use((s) => s.user?.avatar)
  const avatarUpload = useMutation({
    mutationFn: (file: File) => uploadAvatar(file, file.name),
    onSuccess: ({ imgUrl }) => {
      sessionActions.avatarChanged(imgUrl)
      void queryClient.invalidateQueries({ queryKey: ['user', 'profile'] })
      void message.success(t('profile.avatarChanged'))
    },
    // onError left out: the client already showed why.
  })

  return (
    <Card title={t('profile.aboutMe')}>
      <div className="profile-avatar">
        <Upload
          accept=".jpg,.jpeg,.png"
          maxCount={1}
          showUploadList={false}
          disabled={avatarUpload.isPending}
          beforeUpload={(file) => {
            if (!IMAGE_TYPES.includes(file.type) && !IMAGE_EXTENSIONS.test(file.name)) {
              void message.error(t('profile.imageOnly'))
              return Upload.LIST_IGNORE
            }
            avatarUpload.mutate(file)
            return false // we upload ourselves, through the http client
          }}
        >
          <span className="profile-avatar-button" role="button" aria-label={t('profile.changeAvatar')} data-testid="avatar-upload">
            <Avatar size={100} src={avatarUrl(sessionAvatar ?? user.avatar, avatarVersion)} data-testid="profile-avatar" />
            <span className="profile-avatar-overlay">
              <CameraOutlined />
            </span>
          </span>
        </Upload>
      </div>
      <Descriptions
        column={1}
        size="small"
        items={[
          { key: 'username', label: t('profile.username'), children: user.username },
          { key: 'nickName', label: t('profile.nickName'), children: user.nickName },
          { key: 'phone', label: t('profile.phone'), children: user.phone },
          { key: 'email', label: t('profile.email'), children: user.email },
          { key: 'dept', label: t('profile.dept'), children: user.deptName ?? '' },
          { key: 'roles', label: t('profile.roles'), children: roleGroup },
          { key: 'created', label: t('profile.createTime'), children: user.createTime ? dayjs(user.createTime).format('YYYY-MM-DD HH:mm:ss') : '' },
        ]}
      />
      <style>{`
        .profile-avatar { display: flex; justify-content: center; margin-bottom: 16px; }
        .profile-avatar-button { position: relative; display: inline-block; cursor: pointer; border-radius: 50%; }
        .profile-avatar-overlay { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center;
          font-size: 24px; color: #fff; background: rgba(0,0,0,.4); border-radius: 50%; opacity: 0; transition: opacity .2s; }
        .profile-avatar-button:hover .profile-avatar-overlay { opacity: 1; }
      `}</style>
    </Card>
  )
}
