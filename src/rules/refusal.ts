/**
 * Refusals whose words load on first use (issue #44): a check at open throws at once, with its
 * code, a {@link refuse}d `TtlError` naming its text (`texts.ts`); the open {@link explain}s it,
 * loading the texts, before it rejects, so the app sees the full message.
 */
import { TtlError, type TtlErrorCode } from './errors.js'
import type { Texts } from './texts.js'

/** How an entry brings `texts.ts`: `import()` on a page, the module itself in a service worker. */
export type LoadTexts = () => Promise<{ TEXTS: Texts }>

/** The refusals not yet explained: their text's key and what fills it in. */
const unexplained = new WeakMap<TtlError, [keyof Texts, unknown[]]>()

/** A `TtlError` whose message is the text `key` of `texts.ts`, filled in by {@link explain}. */
export function refuse<K extends keyof Texts>(code: TtlErrorCode, key: K, ...args: Parameters<Texts[K]>): TtlError {
  const error = new TtlError(code, key)
  unexplained.set(error, [key, args])
  return error
}

/** Rethrows `error`, with its words when it is a {@link refuse}d one (left as it is if they cannot be loaded). */
export async function explain(error: unknown, load: LoadTexts): Promise<never> {
  const pending = unexplained.get(error as TtlError)
  const texts = pending && (await load().catch(() => undefined))
  if (pending && texts) {
    const refused = error as TtlError
    const text = (texts.TEXTS[pending[0]] as (...args: unknown[]) => string)(...pending[1])
    // V8 wrote the message into the stack when the error was made: the console shows that.
    refused.stack = refused.stack?.replace(refused.message, text)
    refused.message = text
  }
  throw error
}
