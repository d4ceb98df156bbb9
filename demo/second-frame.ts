/**
 * `?view=second`: the compact page the demo embeds beside its own event log. It opens the same
 * database on a connection of its own, as another tab would, and only listens to `onExpire`.
 */
import { openDemoDB, type DemoParams } from './database.js'
import { h, setText } from './dom.js'
import { ExpireLog } from './expire-log.js'

export function mountSecondFrame(params: DemoParams): void {
  document.documentElement.classList.add('second')
  const log = new ExpireLog('Second frame: its own connection and onExpire listener')
  const status = h('p', { class: 'status-line', 'data-testid': 'status', role: 'status' }, 'Opening…')
  document.body.replaceChildren(status, log.el)
  openDemoDB(params, 'off').then(
    (db) => {
      db.onExpire((event) => log.add(event))
      status.dataset.state = 'ready'
      setText(status, `Listening to "${params.dbName}" (no purge here: the page around runs it)`)
    },
    (error: Error) => {
      status.dataset.state = 'error'
      setText(status, `Could not open the database: ${error.name}: ${error.message}`)
    },
  )
}
