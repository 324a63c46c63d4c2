/**
 * A text/event-stream response the test writes to: push() sends text (any piece of it), close()
 * ends the stream, and aborting the request's signal errors it as a real fetch body would.
 */
export function sseResponse(signal?: AbortSignal | null) {
  const encoder = new TextEncoder()
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let open = true
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
  })
  signal?.addEventListener('abort', () => {
    if (!open) return
    open = false
    controller.error(new DOMException('The operation was aborted.', 'AbortError'))
  })
  const response = new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } })
  return {
    response,
    push(text: string) {
      if (open) controller.enqueue(encoder.encode(text))
    },
    /** One event with JSON data. */
    send(event: string, data: unknown) {
      this.push(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    close() {
      if (!open) return
      open = false
      controller.close()
    },
  }
}

export type SseHandle = ReturnType<typeof sseResponse>
