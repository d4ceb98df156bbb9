// idb-ttl/react: each user's live sessions; one leaves the list the second it expires.
import { StrictMode, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { useLive } from 'idb-ttl/react'
import { opening, startSession, users } from '../database.js'

function Sessions({ user }: { user: string }) {
  // An inline options object is fine: it is compared by value.
  const sessions = useLive(opening, 'sessions', { index: 'byUser', query: user })
  if (sessions === undefined) return <p>Loading…</p>
  return (
    <ul>
      {sessions.map((session) => (
        <li key={session.id}>started {new Date(session.started).toLocaleTimeString()}</li>
      ))}
      {sessions.length === 0 && <li>No live session.</li>}
    </ul>
  )
}

function App() {
  const [user, setUser] = useState(users[0])
  return (
    <main>
      <h1>Sessions of {user}</h1>
      <select value={user} onChange={(event) => setUser(event.target.value)}>
        {users.map((name) => (
          <option key={name}>{name}</option>
        ))}
      </select>
      <button onClick={() => startSession(user)}>Start a session (10 s)</button>
      <button onClick={() => startSession(user, 3)}>Start a session (3 s)</button>
      <Sessions user={user} />
    </main>
  )
}

createRoot(document.getElementById('app')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
