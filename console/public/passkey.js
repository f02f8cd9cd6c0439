// Passkeys: adds one (the passkeys page) or signs in with one (the sign-in page) through
// @simplewebauthn/browser, served from /static/vendor/ before this file. Records makes the
// options and checks the answer; this only asks the console for the options, hands them to the
// browser's authenticator, and posts the answer in the form. Without JavaScript or passkey
// support the forms stay hidden and a sentence says why.
'use strict';
(() => {
  const webauthn = window.SimpleWebAuthnBrowser;
  if (!webauthn || !webauthn.browserSupportsWebAuthn()) return;
  for (const note of document.querySelectorAll('[data-passkey-unsupported]')) note.hidden = true;
  for (const form of document.querySelectorAll('form[data-passkey]')) {
    const status = document.getElementById(form.getAttribute('data-passkey-status'));
    const say = (text) => {
      if (status) status.textContent = text;
    };
    form.hidden = false;
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      if (!form.reportValidity()) return;
      say('Waiting for your passkey…');
      const body = new URLSearchParams();
      const csrf = form.elements.namedItem('_csrf');
      if (csrf) body.set('_csrf', csrf.value);
      let optionsJSON;
      try {
        const res = await fetch(form.getAttribute('data-passkey-options'), {
          method: 'POST',
          body,
          credentials: 'same-origin',
        });
        const answer = await res.json();
        if (!res.ok) {
          say(answer.message || 'That did not work. Reload the page and try again.');
          return;
        }
        optionsJSON = answer;
      } catch {
        say('The Developers area could not be reached. Try again.');
        return;
      }
      try {
        const response =
          form.getAttribute('data-passkey') === 'register'
            ? await webauthn.startRegistration({ optionsJSON })
            : await webauthn.startAuthentication({ optionsJSON });
        form.elements.namedItem('response').value = JSON.stringify(response);
      } catch (err) {
        say(
          err && err.name === 'NotAllowedError'
            ? 'Cancelled, or no passkey was chosen. Try again when you are ready.'
            : `Your browser could not use a passkey${err && err.message ? `: ${err.message}` : '.'}`,
        );
        return;
      }
      say('Checking your passkey…');
      form.submit();
    });
  }
})();
