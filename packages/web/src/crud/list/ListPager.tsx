import { useRef } from 'react'
import { Pagination } from 'antd'
import { PAGE_SIZES } from '@velo/shared'
import { useTranslation } from 'react-i18next'
import { scrollToTop } from './scrollToTop'

export interface ListPagerProps {
  total: number
  pageNum: number
  pageSize: number
  onChange: (pageNum: number, pageSize: number) => void
}

/** The shared pager (SPEC §9): total, sizes 10/20/30/50, prev, pages, next, jumper; the content scrolls back up. */
export function ListPager({ total, pageNum, pageSize, onChange }: ListPagerProps) {
  const { t } = useTranslation()
  const anchor = useRef<HTMLDivElement>(null)
  if (total <= 0) return null
  return (
    <div className="crud-pager" ref={anchor}>
      <Pagination
        total={total}
        current={pageNum}
        pageSize={pageSize}
        pageSizeOptions={PAGE_SIZES.map(String)}
        showSizeChanger
        showQuickJumper
        showTotal={(count) => t('crud.total', { total: count })}
        onChange={(page, size) => {
          // A new page size starts again from the first page.
          onChange(size === pageSize ? page : 1, size)
          scrollToTop(anchor.current)
        }}
      />
    </div>
  )
}
