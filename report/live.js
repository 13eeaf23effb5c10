(function () {
'use strict';
// The page as evalmd agg --serve serves it: the server answers "did the
// output files change since this page was made?" when they change (or
// after a while, to be asked again); the page then loads itself again,
// keeping its view, which lives in the URL fragment.
var url = document.currentScript.dataset.url;
function ask() {
  fetch(url, {cache: 'no-store'}).then(function (r) {
    if (r.status === 205) {
      location.reload();
      return;
    }
    setTimeout(ask, r.ok ? 0 : 2000);
  }, function () {
    setTimeout(ask, 2000); // the server is gone, or restarting: ask again later
  });
}
ask();
})();
