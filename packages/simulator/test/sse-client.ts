/** A plain fetch client for the tests: POSTs a body and splits the SSE stream into events as they arrive. */
export interface ReceivedEvent {
  event: string | null;
  data: string;
  receivedNs: bigint;
}

export interface StreamResult {
  status: number;
  headers: Headers;
  events: ReceivedEvent[];
  /** The raw text of the body. */
  text: string;
  /** The stream ended with a network error instead of a clean end. */
  failed: boolean;
}

export async function post(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export async function readStream(response: Response, stopAfterEvents = Infinity): Promise<StreamResult> {
  const events: ReceivedEvent[] = [];
  let text = '';
  let buffer = '';
  let failed = false;
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const receivedNs = process.hrtime.bigint();
      const chunk = decoder.decode(value, { stream: true });
      text += chunk;
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let event: string | null = null;
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('event:')) event = line.slice(6).trim();
          else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        }
        if (data.length > 0) events.push({ event, data: data.join('\n'), receivedNs });
      }
      if (events.length >= stopAfterEvents) {
        await reader.cancel();
        break;
      }
    }
  } catch {
    failed = true;
  }
  return { status: response.status, headers: response.headers, events, text, failed };
}

/** The JSON chunks of a stream (everything but [DONE]). */
export function chunks(result: StreamResult): Array<Record<string, unknown>> {
  return result.events
    .filter((e) => e.data !== '[DONE]')
    .map((e) => JSON.parse(e.data) as Record<string, unknown>);
}
