// idb-ttl/vue: each user's live sessions; one leaves the list the second it expires. The user is a
// ref, and the options a getter of it: changing the user follows the new query.
import { createApp, defineComponent, h, ref } from 'vue'
import { useLive } from 'idb-ttl/vue'
import { opening, startSession, users } from '../database.js'

const App = defineComponent({
  setup() {
    const user = ref(users[0])
    const sessions = useLive(opening, 'sessions', () => ({ index: 'byUser' as const, query: user.value }))
    return () =>
      h('main', [
        h('h1', `Sessions of ${user.value}`),
        h('select', { value: user.value, onChange: (event: Event) => (user.value = (event.target as HTMLSelectElement).value) }, users.map((name) => h('option', name))),
        h('button', { onClick: () => startSession(user.value) }, 'Start a session (10 s)'),
        h('button', { onClick: () => startSession(user.value, 3) }, 'Start a session (3 s)'),
        sessions.value === undefined
          ? h('p', 'Loading…')
          : h('ul', sessions.value.length === 0 ? [h('li', 'No live session.')] : sessions.value.map((session) => h('li', { key: session.id }, `started ${new Date(session.started).toLocaleTimeString()}`))),
      ])
  },
})

createApp(App).mount('#app')
