// Keeps a delivery's outcome current while it is pending (queued is not delivered: SPEC 6.4).
// It fetches this same page every 2 s and swaps in the region marked data-poll; the region is
// aria-live, so screen readers hear the change. Without JavaScript the Refresh link does this.
'use strict';
const region = document.querySelector('[data-poll]');
async function poll() {
  if (!region || region.getAttribute('data-poll') !== 'pending') return;
  try {
    const res = await fetch(location.href, { credentials: 'same-origin' });
    if (res.ok) {
      const doc = new DOMParser().parseFromString(await res.text(), 'text/html');
      const fresh = doc.querySelector('[data-poll]');
      if (fresh) {
        region.innerHTML = fresh.innerHTML;
        region.setAttribute('data-poll', fresh.getAttribute('data-poll'));
      }
    }
  } catch {
    // A failed poll is retried on the next tick.
  }
  setTimeout(poll, 2000);
}
setTimeout(poll, 2000);
