import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

/** The paired phone's page (/pair, /m) is its own app, on the phones' listener only; every other path is the computer's. */
const phone = location.pathname === '/pair' || location.pathname === '/m' || location.pathname.startsWith('/m/');

async function startPhone(el: HTMLElement): Promise<void> {
  const link = document.createElement('link');
  link.rel = 'manifest';
  link.href = '/manifest.webmanifest';
  document.head.append(link);
  const { default: PhoneApp } = await import('./features/phone/PhoneApp.svelte');
  mount(PhoneApp, { target: el });
}

if (phone) void startPhone(target);
else mount(App, { target });
