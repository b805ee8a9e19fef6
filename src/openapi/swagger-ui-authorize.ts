/**
 * Swagger UI's Authorize dialog gives the focus to each HTTP scheme's token field as it renders it,
 * so the last one (the admin key) ends up focused and scrolled into view, with the OAuth2
 * client-credentials form, the first, out of sight. This script, run in the page, puts the focus on
 * that form's client_id instead and shows the dialog from its top, each time the dialog opens.
 */
export const FOCUS_CLIENT_CREDENTIALS_ON_AUTHORIZE = `(() => {
  const focused = new WeakSet();
  new MutationObserver(() => {
    const clientId = document.querySelector('.modal-ux #client_id_clientCredentials');
    if (!clientId || focused.has(clientId)) return;
    focused.add(clientId);
    clientId.focus({ preventScroll: true });
    const content = document.querySelector('.modal-ux-content');
    if (content) content.scrollTop = 0;
  }).observe(document.body, { childList: true, subtree: true });
})();`;
