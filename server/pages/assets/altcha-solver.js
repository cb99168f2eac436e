// Solves the ALTCHA proof of work of the password-reset form: finds the number n for which
// SHA-256(salt + n) equals the challenge, then puts the signed solution in captcha_response.
// Runs in the browser (Web Crypto); the server checks it with altcha-lib.
(async () => {
  const form = document.getElementById('resetpw');
  const status = document.getElementById('captcha-status');
  if (!form || !form.dataset.challenge) return;
  const button = form.querySelector('button[type="submit"]');
  const { algorithm, challenge, salt, signature, maxnumber } = JSON.parse(form.dataset.challenge);
  button.disabled = true;
  const encoder = new TextEncoder();
  const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
  for (let number = 0; number <= (maxnumber || 1000000); number++) {
    if (hex(await crypto.subtle.digest(algorithm, encoder.encode(salt + number))) === challenge) {
      form.elements.captcha_response.value = btoa(JSON.stringify({ algorithm, challenge, number, salt, signature }));
      button.disabled = false;
      if (status) status.hidden = true;
      return;
    }
  }
  if (status) status.textContent = status.dataset.failed || 'The check failed; reload the page.';
})();
