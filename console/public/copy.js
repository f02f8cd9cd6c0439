// The copy button of the one-time key and secret pages: the only script the console needs to
// work fully (every form works without it). Loaded as /static/copy.js under script-src 'self'.
'use strict';
for (const button of document.querySelectorAll('button[data-copy-target]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.getAttribute('data-copy-target'));
    const status = document.getElementById(button.getAttribute('data-copy-status'));
    try {
      await navigator.clipboard.writeText(target.textContent.trim());
      if (status) status.textContent = 'Copied.';
    } catch {
      if (status) status.textContent = 'Copy failed: select the text and copy it yourself.';
    }
  });
}
