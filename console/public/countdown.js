// Ticks the "expires in …" countdowns of the keys page (elements with data-expires-at). The
// server already wrote the words and the absolute UTC time, so without this script the page
// still reads right; with it the words stay current. Same words as src/views/countdown.ts
// (pages/keys/input.test.ts runs both and checks they agree).
'use strict';
function formatRemaining(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${String(sec).padStart(2, '0')} s`;
  return `${sec} s`;
}
const countdowns = [...document.querySelectorAll('[data-expires-at]')];
function tick() {
  for (const el of countdowns) {
    const left = Date.parse(el.getAttribute('data-expires-at')) - Date.now();
    el.textContent = left > 0 ? `expires in ${formatRemaining(left)}` : 'expired';
  }
}
if (countdowns.length > 0) setInterval(tick, 1000);
