// Keeps something pending current (queued is not delivered: docs/contract.md#test-deliveries): a delivery's outcome,
// or a rotation's test with the new secret. While the element marked data-poll says
// "pending", it fetches this same page every 2 s and swaps in each region marked
// data-refresh (matched by id) whose content changed; the status region is aria-live, so
// screen readers hear the change, and untouched regions keep their state. Without
// JavaScript the Refresh link does this.
'use strict';
const marker = document.querySelector('[data-poll]');
async function poll() {
  if (!marker || marker.getAttribute('data-poll') !== 'pending') return;
  try {
    const res = await fetch(location.href, { credentials: 'same-origin' });
    if (res.ok) {
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      for (const region of document.querySelectorAll('[data-refresh]')) {
        const fresh = region.id ? doc.getElementById(region.id) : null;
        if (fresh && fresh.innerHTML !== region.innerHTML) region.innerHTML = fresh.innerHTML;
      }
      const state = doc.querySelector('[data-poll]');
      marker.setAttribute('data-poll', state ? state.getAttribute('data-poll') : 'done');
    }
  } catch {
    // A failed poll is retried on the next tick.
  }
  setTimeout(poll, 2000);
}
setTimeout(poll, 2000);
