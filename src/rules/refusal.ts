/**
 * Refusals whose words load on first use (issue #44): a check throws at once, with its code, a
 * {@link refuse}d `TtlError` naming its text (`texts.ts`); the open, or the handle's routes for a
 * call, {@link explain}s it, loading the texts, before it rejects, so the app sees the full message.
 * Where a refusal must have its words at once (inside a transaction, which would end while they
 * load), the code that catches it holds the texts already and fills them in with {@link explained}.
 */
import { TtlError, type TtlErrorCode } from './errors.js'
import type { TEXTS as CoreTexts } from './full-only-texts.js'
import type { TEXTS as FullTexts } from './full-texts.js'

/** Every text a refusal may name: `texts.ts`'s, and those only `idb-ttl/core`'s or `idb-ttl`'s refusals name. */
export type Texts = typeof CoreTexts & typeof FullTexts

/**
 * How an entry brings `texts.ts`: `import()` on a page, the module itself in a service worker;
 * each entry's adds to it the words of the refusals only it makes (`full-only-texts.ts`,
 * `full-texts.ts`), and brings that module.
 */
export type LoadTexts = () => Promise<{ TEXTS: Partial<Texts> }>

/** The refusals not yet explained: their text's key and what fills it in. */
const unexplained = new WeakMap<TtlError, [keyof Texts, unknown[]]>()

/** A `TtlError` whose message is the text `key` of `texts.ts`, filled in by {@link explain}. */
export function refuse<K extends keyof Texts>(code: TtlErrorCode, key: K, ...args: Parameters<Texts[K]>): TtlError {
  const error = new TtlError(code, key)
  unexplained.set(error, [key, args])
  return error
}

/** `error`, with its words from `texts` when it is a {@link refuse}d one not yet explained; any other as it is. */
export function explained(error: unknown, texts: Partial<Texts>): unknown {
  const pending = unexplained.get(error as TtlError)
  const words = pending && (texts[pending[0]] as ((...args: unknown[]) => string) | undefined)
  if (words) {
    const refused = error as TtlError
    const text = words(...pending[1])
    // V8 wrote the message into the stack when the error was made: the console shows that.
    refused.stack = refused.stack?.replace(refused.message, text)
    refused.message = text
    unexplained.delete(refused)
  }
  return error
}

/** Rethrows `error`, with its words when it is a {@link refuse}d one (left as it is if they cannot be loaded). */
export async function explain(error: unknown, load: LoadTexts): Promise<never> {
  const texts = unexplained.has(error as TtlError) && (await load().catch(() => undefined))
  throw texts ? explained(error, texts.TEXTS) : error
}
