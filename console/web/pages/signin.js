// The sign-in page: an admin token exchanged for a session cookie (the token is not kept).
import { signIn } from '../api.js';
import { errorBox, field, h, replace } from '../lib/dom.js';

export function render(root, { note, onSignedIn }) {
  const status = h('div', { class: 'status', 'aria-live': 'polite' });
  const submit = h('button', { type: 'submit', class: 'btn primary', testid: 'signin-submit' }, 'Sign in');
  const tokenField = field('Admin token', { name: 'token', type: 'password', autocomplete: 'current-password',
    required: true, testid: 'signin-token' });
  const form = h('form', { class: 'signin panel', testid: 'signin-form' },
    h('h1', {}, 'Sign in to the llmux console'),
    h('p', { class: 'muted' }, 'Use an admin token of the gateway (admin_token or admin_tokens). ' +
      'A read-only token can look but not change.'),
    note ? h('p', { class: 'note', testid: 'signin-note' }, note) : null,
    tokenField, submit, status);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = form.elements.token;
    submit.disabled = true;
    submit.setAttribute('aria-busy', 'true');
    status.replaceChildren(h('p', { class: 'state loading' }, 'Signing in…'));
    try {
      await signIn(input.value);
      input.value = '';
      status.replaceChildren();
      await onSignedIn();
    } catch (error) {
      const shown = error.status === 401 ? { message: 'Wrong token.' } : error;
      status.replaceChildren(errorBox(shown, { testid: 'signin-error' }));
      input.focus();
    } finally {
      submit.disabled = false;
      submit.removeAttribute('aria-busy');
    }
  });
  replace(root, form);
  form.elements.token.focus();
}
