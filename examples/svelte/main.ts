// idb-ttl/svelte: each user's live sessions; one leaves the list the second it expires.
import { mount } from 'svelte'
import App from './App.svelte'

mount(App, { target: document.getElementById('app')! })
