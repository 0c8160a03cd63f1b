// Runs apart from the dashboard's bundle, so it still runs when that bundle is blocked, fails to
// load or hangs. When the panel of index.html is still there after 12 s (the app removes it when it
// starts), it asks the server for the session and says which of the listed causes it found.
// Without any script the panel still appears (styles.css), listing every cause.
(function () {
  'use strict';
  var FINDINGS = {
    server: 'Found: the Monitor server does not answer (GET /api/session failed).',
    'signed-out':
      'Found: the server answers but this browser is not signed in; reloading leads to the sign-in page.',
    script:
      'Found: the server answers and the session is fine, so the dashboard script itself did not start (blocked or failed to load).',
  };

  function diagnose(panel) {
    var finding = panel.querySelector('[data-finding]');
    var controller = new AbortController();
    var timer = setTimeout(function () {
      controller.abort();
    }, 5000);
    fetch('/api/session', { cache: 'no-store', credentials: 'same-origin', signal: controller.signal })
      .then(function (response) {
        if (!response.ok) return 'server';
        return response.json().then(function (session) {
          return session.authenticated || session.setup_needed ? 'script' : 'signed-out';
        });
      })
      .catch(function () {
        return 'server';
      })
      .then(function (cause) {
        clearTimeout(timer);
        panel.setAttribute('data-cause', cause);
        finding.textContent = FINDINGS[cause];
        finding.hidden = false;
      });
  }

  setTimeout(function () {
    var panel = document.getElementById('boot-watchdog');
    if (panel) diagnose(panel);
  }, 12000);
})();
