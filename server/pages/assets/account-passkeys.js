// Adds a passkey on the account page (docs/account.md): asks the server for the creation options,
// lets the browser make the credential (@simplewebauthn/browser, loaded before this script), and
// sends the browser's answer back; the page then reloads with the new passkey listed. The form's
// CSRF token goes along in each JSON body.
(() => {
  const form = document.getElementById('add-passkey');
  const webauthn = window.SimpleWebAuthnBrowser;
  if (!form || !webauthn || !webauthn.browserSupportsWebAuthn()) return;
  const button = form.querySelector('button[type="submit"]');
  const status = document.getElementById('passkey-status');
  const csrf = form.elements.csrf_token.value;
  // The sign-in's enrollment step carries its sealed sign-in along (docs/account.md#second-factor-required).
  const sealed = form.elements.interaction ? { interaction: form.elements.interaction.value } : {};
  button.disabled = false;
  const post = async (url, body) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ csrf_token: csrf, ...sealed, ...body }),
      credentials: 'same-origin',
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.error_description || answer.error || String(response.status));
    return answer;
  };
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    button.disabled = true;
    status.textContent = '';
    try {
      const { id, options } = await post(form.dataset.start, { name: form.elements.name.value });
      const response = await webauthn.startRegistration({ optionsJSON: options });
      const { next, recovery_codes: codes } = await post(form.dataset.verify, { id, response });
      if (!codes) return window.location.assign(next);
      // The first factor brings recovery codes, shown this once: in place of the form, with the way on.
      const list = document.createElement('ul');
      list.className = 'codes';
      for (const code of codes) list.appendChild(document.createElement('li')).appendChild(document.createElement('code')).textContent = code;
      const done = document.createElement('a');
      done.className = 'button';
      done.href = next;
      done.textContent = form.dataset.saved;
      const intro = document.createElement('p');
      intro.textContent = form.dataset.save;
      form.replaceWith(intro, list, done);
    } catch (error) {
      status.textContent = `${form.dataset.failed} ${error && error.message ? error.message : ''}`.trim();
      button.disabled = false;
    }
  });
})();
