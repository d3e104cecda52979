/**
 * Slack's documented Block Kit limits for a message (api.slack.com/reference/block-kit/blocks):
 * Slack answers 400 `invalid_blocks` when one is crossed, so every builder below cuts its text to
 * them. `messageChars` keeps the whole message under the ~13,000 characters of blocks at which
 * Slack was seen to answer `msg_blocks_too_long`, well below the 40,000 of the top-level text.
 */
export const SLACK_LIMITS = {
  blocks: 50,
  headerText: 150,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  contextElements: 10,
  contextText: 3000,
  actionsElements: 25,
  buttonText: 75,
  buttonUrl: 3000,
  messageChars: 12_000,
} as const;

export interface SlackText {
  type: 'plain_text' | 'mrkdwn';
  text: string;
  emoji?: boolean;
}

export type SlackBlock =
  | { type: 'header'; text: SlackText }
  | { type: 'section'; text?: SlackText; fields?: SlackText[] }
  | { type: 'context'; elements: SlackText[] }
  | { type: 'divider' }
  | {
      type: 'actions';
      elements: Array<{ type: 'button'; text: SlackText; url: string; action_id: string }>;
    };

/** The JSON an incoming webhook takes: `text` is the notification's fallback, `blocks` the message. */
export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

/** `text` cut to `max` characters (code points, so an emoji is never split), ending in `…` when cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Escapes what mrkdwn reads as markup or a link in text that came from users (labels, names). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export const header = (text: string): SlackBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: clip(text, SLACK_LIMITS.headerText), emoji: true },
});

export const section = (text: string): SlackBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: clip(text, SLACK_LIMITS.sectionText) },
});

/** Label/value pairs shown two to a row; at most 10, as Slack allows. */
export function fields(pairs: ReadonlyArray<[string, string]>): SlackBlock {
  return {
    type: 'section',
    fields: pairs.slice(0, SLACK_LIMITS.sectionFields).map(([label, value]) => ({
      type: 'mrkdwn',
      text: clip(`*${label}*\n${value}`, SLACK_LIMITS.fieldText),
    })),
  };
}

export const context = (text: string): SlackBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: clip(text, SLACK_LIMITS.contextText) }],
});

/** Link buttons; a link longer than Slack takes is left out rather than cut into a wrong address. */
export function buttons(links: ReadonlyArray<[string, string]>): SlackBlock | null {
  const elements = links
    .filter(([, url]) => url.length <= SLACK_LIMITS.buttonUrl)
    .slice(0, SLACK_LIMITS.actionsElements)
    .map(([label, url], i) => ({
      type: 'button' as const,
      text: { type: 'plain_text' as const, text: clip(label, SLACK_LIMITS.buttonText) },
      url,
      action_id: `teapot-link-${i}`,
    }));
  return elements.length > 0 ? { type: 'actions', elements } : null;
}

/**
 * Lines joined into one section's text, at most `maxLines` and within the section's limit; what
 * does not fit is counted in a last line, `+N more`, so a reader knows the list goes on.
 */
export function listSection(title: string, lines: readonly string[], maxLines: number): SlackBlock {
  const room = SLACK_LIMITS.sectionText - title.length - 40;
  const shown: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (shown.length === maxLines || used + line.length + 1 > room) break;
    shown.push(line);
    used += line.length + 1;
  }
  const more = lines.length - shown.length;
  return section([title, ...shown, ...(more > 0 ? [`+${more} more`] : [])].join('\n'));
}

/** The message within the block count and total size: trailing blocks are dropped, the last kept (its links). */
export function message(text: string, blocks: ReadonlyArray<SlackBlock | null>): SlackMessage {
  const present = blocks.filter((block): block is SlackBlock => block !== null);
  const last = present[present.length - 1];
  const kept: SlackBlock[] = [];
  let size = JSON.stringify(last ?? {}).length;
  for (const block of present.slice(0, -1)) {
    const blockSize = JSON.stringify(block).length;
    if (kept.length === SLACK_LIMITS.blocks - 1 || size + blockSize > SLACK_LIMITS.messageChars) break;
    kept.push(block);
    size += blockSize;
  }
  return { text: clip(text, SLACK_LIMITS.sectionText), blocks: last ? [...kept, last] : kept };
}
