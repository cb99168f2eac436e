// Signs in with a passkey (server/pages/passkey.ts): shows the form's button when the browser
// can use passkeys; the button, or a passkey picked from the username field's autofill
// (conditional mediation), asks the browser for an assertion with the form's options and posts
// it. Runs in the browser with @simplewebauthn/browser, loaded just before it.
(() => {
  const form = document.getElementById('passkey');
  const webauthn = window.SimpleWebAuthnBrowser;
  if (!form || !webauthn || !webauthn.browserSupportsWebAuthn()) return;
  const optionsJSON = JSON.parse(form.dataset.options);
  const button = form.querySelector('button');
  const status = document.getElementById('passkey-status');
  const ask = async (useBrowserAutofill) => {
    try {
      const response = await webauthn.startAuthentication({ optionsJSON, useBrowserAutofill });
      form.elements.credential.value = JSON.stringify(response);
      form.submit();
    } catch (error) {
      // An autofill request ends when the button starts another: nothing to say.
      if (useBrowserAutofill || (error && error.name === 'AbortError')) return;
      status.textContent = error && error.name === 'NotAllowedError' ? status.dataset.cancelled : status.dataset.unsupported;
    }
  };
  button.hidden = false;
  button.addEventListener('click', () => ask(false));
  if (form.dataset.autofill === 'true') {
    webauthn.browserSupportsWebAuthnAutofill().then((supported) => supported && ask(true));
  }
})();
