(function () {
'use strict';
// The page's data: see report.Data. Text only ever enters the page as text
// nodes (append of strings, textContent), never as markup.
var D = JSON.parse(document.getElementById('data').textContent);
var $ = function (id) { return document.getElementById(id); };

// add appends the children that are there.
function add(parent) {
  for (var i = 1; i < arguments.length; i++) {
    var c = arguments[i];
    if (c !== null && c !== undefined) parent.append(c);
  }
  return parent;
}

function el(tag, attrs) {
  var e = document.createElement(tag);
  if (attrs) {
    for (var k in attrs) {
      if (k === 'class') e.className = attrs[k];
      else if (k === 'text') e.textContent = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
  }
  return add.apply(null, [e].concat(Array.prototype.slice.call(arguments, 2)));
}

var textCache = {};
function text(id) {
  if (id < 0) return null;
  if (!(id in textCache)) textCache[id] = D.texts[id].map(function (c) { return D.chunks[c]; }).join('');
  return textCache[id];
}

// pre shows a text; long ones scroll.
function pre(id, cls) {
  var t = text(id);
  if (t === null) return el('pre', {class: 'none', text: 'None'});
  var p = el('pre', {class: cls || '', text: t});
  if (t.length > 1500 || t.split('\n').length > 30) p.classList.add('long');
  return p;
}

// count is "1 noun" or "N nouns".
function count(n, noun) { return n === 1 ? '1 ' + noun : n + ' ' + noun + 's'; }

var gradeWord = {'1': 'right', '0': 'wrong', '-1': 'not graded'};
var gradeMark = {'1': '\u2713', '0': '\u2717', '-1': '\u2013'};
function badge(g) { return el('span', {class: 'badge g' + g, text: gradeWord[g]}); }

// State, kept in the URL fragment. Defaults are left out of the URL.
var keys = ['tab', 'sheet', 'model', 'grade', 'differ', 'order', 'find', 'q', 'a', 'b'];
var S = {};
function readHash() {
  var p = new URLSearchParams(location.hash.replace(/^#/, ''));
  keys.forEach(function (k) { S[k] = p.get(k) || ''; });
  if (['board', 'questions', 'compare'].indexOf(S.tab) < 0) S.tab = S.q ? 'questions' : 'board';
}
function hashOf(st) {
  var p = new URLSearchParams();
  keys.forEach(function (k) {
    if (st[k] && !(k === 'tab' && st[k] === 'board')) p.set(k, st[k]);
  });
  return '#' + p.toString();
}
function with_(changes) {
  var st = {};
  keys.forEach(function (k) { st[k] = S[k]; });
  for (var k in changes) st[k] = changes[k];
  return st;
}
function setState(changes) {
  for (var k in changes) S[k] = changes[k];
  var h = hashOf(S);
  if (h !== location.hash) {
    try { history.replaceState(null, '', h === '#' ? location.pathname + location.search : h); }
    catch (e) { location.hash = h; }
  }
  render();
}

var runsOfModel = {};
D.runs.forEach(function (r, i) { (runsOfModel[r.model] = runsOfModel[r.model] || []).push(i); });
var runByKey = {};
D.runs.forEach(function (r, i) { runByKey[r.key] = i; });
var qByKey = {};
D.questions.forEach(function (q, i) { qByKey[q.k] = i; });

// considered are the answers the model filter keeps.
function considered(q) {
  if (!S.model) return q.a;
  return q.a.filter(function (a) { return D.runs[a.r].model === S.model; });
}
var gradeOf = {right: 1, wrong: 0, ungraded: -1};
function matches(q) {
  if (S.sheet && D.sheets[q.s] !== S.sheet) return false;
  if (S.find && q.n.toLowerCase().indexOf(S.find.toLowerCase()) < 0) return false;
  var as = considered(q);
  if (!as.length) return false;
  if (S.grade in gradeOf && !as.some(function (a) { return a.g === gradeOf[S.grade]; })) return false;
  if (S.differ) {
    var g = as[0].g;
    if (as.every(function (a) { return a.g === g; })) return false;
  }
  return true;
}

function fillSelect(sel, values, labels) {
  values.forEach(function (v, i) { sel.append(el('option', {value: v, text: labels ? labels[i] : v})); });
}
fillSelect($('f-sheet'), D.sheets);
fillSelect($('c-sheet'), D.sheets);
fillSelect($('f-model'), D.models);
var runKeys = D.runs.map(function (r) { return r.key; });
var runLabels = D.runs.map(function (r) { return r.label; });
fillSelect($('c-a'), runKeys, runLabels);
fillSelect($('c-b'), runKeys, runLabels);

$('f-sheet').addEventListener('change', function (e) { setState({sheet: e.target.value}); });
$('c-sheet').addEventListener('change', function (e) { setState({sheet: e.target.value}); });
$('f-model').addEventListener('change', function (e) { setState({model: e.target.value}); });
$('f-grade').addEventListener('change', function (e) { setState({grade: e.target.value}); });
$('f-differ').addEventListener('change', function (e) { setState({differ: e.target.checked ? '1' : ''}); });
$('f-order').addEventListener('change', function (e) { setState({order: e.target.value}); });
$('f-find').addEventListener('input', function (e) { setState({find: e.target.value}); });
$('c-a').addEventListener('change', function (e) { setState({a: e.target.value}); });
$('c-b').addEventListener('change', function (e) { setState({b: e.target.value}); });
document.querySelectorAll('form').forEach(function (f) {
  f.addEventListener('submit', function (e) { e.preventDefault(); });
});

// disagreement is how much a question's epochs disagree: per run of the
// answers considered, the share of its graded answers in the minority
// (0 when all agree, 1/2 at most); the question's is its runs' largest.
function disagreement(q) {
  var by = {};
  considered(q).forEach(function (a) {
    if (a.g < 0) return;
    var r = by[a.r] = by[a.r] || {n: 0, c: 0};
    r.n++;
    r.c += a.g;
  });
  var most = 0;
  for (var k in by) most = Math.max(most, Math.min(by[k].c, by[k].n - by[k].c) / by[k].n);
  return most;
}

// markTitle names an answer's run, its epoch in a run of several, and its
// grade.
function markTitle(a) {
  return D.runs[a.r].label + (a.ep ? ' \u00b7 epoch ' + a.ep : '') + ': ' + gradeWord[a.g] +
    (a.rv ? ' (' + a.rv.by + '\u2019s verdict; the grader said ' + gradeWord[a.rv.gg] + ')' : '') +
    (a.ru ? ' (reused from ' + a.ru + ')' : '');
}

// The legend names each run's number, the order of the marks' groups.
(function () {
  var runs = $('legend-runs');
  if (D.runs.length < 2) return;
  runs.append('Runs: ');
  D.runs.forEach(function (r, i) {
    runs.append(el('span', {class: 'run-name'}, el('span', {class: 'rn', text: String(i + 1)}), ' ' + r.label));
  });
})();

var listLimit = 300;
function renderList() {
  var list = $('q-list');
  list.replaceChildren();
  var shown = D.questions.filter(matches);
  if (S.order === 'disagree') {
    // Most disagreement first; sort is stable, so sheet order breaks ties.
    var dis = shown.map(disagreement);
    var at = shown.map(function (q, i) { return i; });
    at.sort(function (i, j) { return dis[j] - dis[i]; });
    shown = at.map(function (i) { return shown[i]; });
  }
  $('q-count').textContent = shown.length + ' of ' + count(D.questions.length, 'question');
  var current = shownQ();
  shown.slice(0, listLimit).forEach(function (q) {
    var marks = el('span', {class: 'marks'}), group = null;
    considered(q).forEach(function (a) {
      if (!group || group.getAttribute('data-run') !== String(a.r)) {
        // A run's answers (its epochs) side by side, after its number
        // in the legend, when there is more than one run.
        group = el('span', {class: 'run-marks', 'data-run': String(a.r)},
          D.runs.length > 1 ? el('span', {class: 'rn', text: String(a.r + 1)}) : null);
        marks.append(group);
      }
      group.append(el('span', {class: 'mark g' + a.g + (a.ru ? ' ru' : '') + (a.rv ? ' rv' : ''), title: markTitle(a), text: gradeMark[a.g]}));
    });
    var li = el('li', {'data-key': q.k},
      el('a', {href: hashOf(with_({tab: 'questions', q: q.k}))},
        el('span', {class: 'qname', text: q.n}), marks,
        el('span', {class: 'sheetname', text: D.sheets[q.s]})));
    if (q.k === current) li.className = 'on';
    list.append(li);
  });
  if (shown.length > listLimit) {
    list.append(el('li', null, el('button', {type: 'button', class: 'more', text: 'show ' + Math.min(300, shown.length - listLimit) + ' more'})));
    list.lastChild.firstChild.addEventListener('click', function () { listLimit += 300; renderList(); });
  }
}

// groups collects answers by a text field: one group when every run sent
// or expected the same text.
function groups(as, field) {
  var out = [];
  as.forEach(function (a) {
    var g = out.find(function (x) { return x.id === a[field]; });
    if (!g) out.push(g = {id: a[field], runs: []});
    g.runs.push(D.runs[a.r].label);
  });
  return out;
}
function runsNote(g, n) { return n > 1 ? el('p', {class: 'info', text: 'for ' + g.runs.join(', ')}) : null; }

// reviewNote says whose verdict an answer's grade is, when a person's.
function reviewNote(a) {
  if (!a.rv) return null;
  return el('p', {class: 'reviewed', text: 'A person\u2019s verdict: ' + gradeWord[a.g] + ', by ' + a.rv.by +
    (a.rv.at ? ' at ' + a.rv.at : '') + (a.rv.why ? ' (' + a.rv.why + ')' : '') +
    '; the grader said ' + gradeWord[a.rv.gg] + '.'});
}

// answerCard draws one answer, and tells whoever listens (the served
// page's verdicts.js) that it is drawn.
function answerCard(q, a) {
  var card = el('div', {class: 'answer', 'data-run': D.runs[a.r].key},
    el('div', {class: 'head'}, el('strong', {text: D.runs[a.r].label}),
      a.ep ? el('span', {class: 'epoch', text: 'epoch ' + a.ep}) : null, badge(a.g),
      a.ru ? el('span', {class: 'reused', text: 'reused from ' + a.ru + ' (not asked again)'}) : null,
      a.i ? el('span', {class: 'info', text: a.i}) : null),
    reviewNote(a), el('h4', {text: 'Completion'}), pre(a.c, 'completion'));
  if (a.rs != null) card.append(el('details', {class: 'reasoning'}, el('summary', {text: 'Reasoning'}), pre(a.rs, 'reasoning')));
  if (a.e >= 0) card.append(el('h4', {text: 'Error'}), pre(a.e, 'error'));
  (a.x || []).forEach(function (s) {
    card.append(el('h4', {text: s.t}), pre(s.x, s.k === 'code' ? 'code' : ''));
  });
  card.append(el('p', {class: 'info', text: a.f}));
  document.dispatchEvent(new CustomEvent('evalmd:answer', {detail: {card: card, question: q, answer: a}}));
  return card;
}

// shownQ is the key of the question the questions tab shows: the URL's,
// else the first the filters keep (the tab opens on a question, not an
// empty pane; the default stays out of the URL).
function shownQ() {
  if (S.q) return S.q;
  var first = D.questions.find(matches);
  return first ? first.k : '';
}

function renderQuestion() {
  var view = $('q-view');
  view.replaceChildren();
  var qi = qByKey[shownQ()];
  if (qi === undefined) {
    view.append(el('p', {class: 'hint', text: S.q ? 'No question ' + S.q + ' in this report.' : 'Choose a question.'}));
    return;
  }
  var q = D.questions[qi];
  var as = considered(q);
  if (!as.length) as = q.a;
  view.append(el('h2', {text: q.n}), el('p', {class: 'sheetname', text: D.sheets[q.s]}));
  view.append(el('h3', {text: 'Prompt'}));
  var sys = groups(as, 'sys'), usr = groups(as, 'u');
  sys.forEach(function (g) {
    if (g.id < 0) return;
    view.append(el('details', null, el('summary', {text: 'System message'}), runsNote(g, sys.length), pre(g.id, 'system')));
  });
  usr.forEach(function (g) { add(view, runsNote(g, usr.length), pre(g.id, 'user')); });
  view.append(el('h3', {text: 'Ground truth'}));
  var gts = groups(as, 't');
  gts.forEach(function (g) { add(view, runsNote(g, gts.length), pre(g.id, 'truth')); });
  view.append(el('h3', {text: 'Answers'}));
  as.forEach(function (a) { view.append(answerCard(q, a)); });
}

// defaultPair is the pair of runs compared when the URL names none (or
// only A, given): A is the first run that shares a question with another,
// B the run sharing the most questions with A (the first such). Two runs
// of different sheets share none, and a comparison of them shows nothing.
function defaultPair(given) {
  var firsts = given === undefined ? D.runs.map(function (r, i) { return i; }) : [given];
  for (var n = 0; n < firsts.length; n++) {
    var a = firsts[n], shared = {};
    D.questions.forEach(function (q) {
      if (!q.a.some(function (x) { return x.r === a; })) return;
      q.a.forEach(function (x) { if (x.r !== a) shared[x.r] = (shared[x.r] || 0) + 1; });
    });
    var best = -1;
    for (var r = 0; r < D.runs.length; r++) {
      if (shared[r] && (best < 0 || shared[r] > shared[best])) best = r;
    }
    if (best >= 0) return [a, best];
  }
  var a0 = given === undefined ? 0 : given;
  return [a0, a0 === 0 ? 1 : 0];
}

var flipLimit = {};
function renderCompare() {
  var view = $('c-view');
  view.replaceChildren();
  if (D.runs.length < 2) {
    view.append(el('p', {class: 'hint', text: 'Comparing needs two runs; this report has ' + D.runs.length + '.'}));
    return;
  }
  var ai = runByKey[S.a], bi = runByKey[S.b];
  if (ai === undefined || bi === undefined) {
    var pair = defaultPair(ai);
    if (ai === undefined) ai = pair[0];
    if (bi === undefined) bi = pair[1];
  }
  $('c-a').value = D.runs[ai].key;
  $('c-b').value = D.runs[bi].key;
  var A = D.runs[ai].label, B = D.runs[bi].label;
  // Each epoch of A is paired with the same epoch of B (a run of one
  // epoch is epoch 1): a pair per question and epoch both answered.
  var counts = {}, flips = {'10': [], '01': []}, both = 0, pairs = 0, unpaired = 0;
  var byEpoch = function (q, r) {
    var m = {};
    q.a.forEach(function (x) { if (x.r === r) m[x.ep || 1] = x; });
    return m;
  };
  D.questions.forEach(function (q) {
    if (S.sheet && D.sheets[q.s] !== S.sheet) return;
    var as = byEpoch(q, ai), bs = byEpoch(q, bi), any = false;
    for (var ep in as) {
      var a = as[ep], b = bs[ep];
      if (!b) { unpaired++; continue; }
      any = true;
      pairs++;
      var k = a.g + ',' + b.g;
      counts[k] = (counts[k] || 0) + 1;
      if (a.g !== b.g && a.g >= 0 && b.g >= 0) flips['' + a.g + b.g].push([q, a, b]);
    }
    for (var e in bs) if (!as[e]) unpaired++;
    if (any) both++;
  });
  var said = count(both, 'question') + ' answered in both runs' + (S.sheet ? ' of sheet ' + S.sheet : '');
  if (pairs !== both || unpaired) {
    said += ': ' + count(pairs, 'pair') + ' of answers, each epoch of A with the same epoch of B' +
      (unpaired ? ' (' + count(unpaired, 'answer') + ' with no counterpart left out)' : '');
  }
  view.append(el('p', {class: 'count', text: said}));
  var vals = [1, 0, -1];
  var m = el('table', {class: 'matrix'});
  var hr = el('tr', null, el('th', {text: 'A \u2193 \u00b7 B \u2192'}));
  vals.forEach(function (v) { hr.append(el('th', {text: 'B ' + gradeWord[v]})); });
  m.append(hr);
  vals.forEach(function (va) {
    var tr = el('tr', null, el('th', {text: 'A ' + gradeWord[va]}));
    vals.forEach(function (vb) { tr.append(el('td', {text: String(counts[va + ',' + vb] || 0)})); });
    m.append(tr);
  });
  view.append(el('p', null, 'A: ', el('strong', {text: A}), ' \u00b7 B: ', el('strong', {text: B})), m);
  [['10', 'Right in A, wrong in B'], ['01', 'Wrong in A, right in B']].forEach(function (f) {
    var list = flips[f[0]];
    var sec = el('section', {class: 'flips', 'data-flip': f[0]}, el('h3', {text: f[1] + ' (' + list.length + ')'}));
    var lim = flipLimit[f[0]] || 50;
    list.slice(0, lim).forEach(function (t) {
      var q = t[0];
      sec.append(el('div', {class: 'flip', 'data-key': q.k},
        el('h4', null, el('a', {href: hashOf(with_({tab: 'questions', q: q.k}))}, q.n),
          ' ', el('span', {class: 'sheetname', text: D.sheets[q.s]}),
          t[1].ep || t[2].ep ? el('span', {class: 'epoch', text: ' epoch ' + (t[1].ep || 1)}) : null),
        el('div', {class: 'pair'},
          el('div', {class: 'side-a'}, el('div', {class: 'head'}, 'A ', badge(t[1].g), ' ', A), pre(t[1].c, 'completion')),
          el('div', {class: 'side-b'}, el('div', {class: 'head'}, 'B ', badge(t[2].g), ' ', B), pre(t[2].c, 'completion'))),
        add(el('p', {class: 'info'}, 'Ground truth: '), text(t[1].t) === null ? 'None' : text(t[1].t))));
    });
    if (list.length > lim) {
      var btn = el('button', {type: 'button', class: 'more', text: 'show ' + Math.min(50, list.length - lim) + ' more'});
      btn.addEventListener('click', function () { flipLimit[f[0]] = lim + 50; renderCompare(); });
      sec.append(btn);
    }
    view.append(sec);
  });
}

function render() {
  ['board', 'questions', 'compare'].forEach(function (t) { $('tab-' + t).hidden = t !== S.tab; });
  document.querySelectorAll('#tabs a').forEach(function (a) {
    a.classList.toggle('on', a.getAttribute('data-tab') === S.tab);
    a.setAttribute('href', hashOf(with_({tab: a.getAttribute('data-tab')})));
  });
  $('f-sheet').value = S.sheet;
  $('c-sheet').value = S.sheet;
  $('f-model').value = S.model;
  $('f-grade').value = S.grade;
  $('f-differ').checked = !!S.differ;
  $('f-order').value = S.order;
  if ($('f-find').value !== S.find) $('f-find').value = S.find;
  if (S.tab === 'questions') { renderList(); renderQuestion(); }
  if (S.tab === 'compare') renderCompare();
  document.body.setAttribute('data-ready', S.tab);
}

// A grade changed in the page's data (a verdict the served page sent):
// everything is drawn again.
document.addEventListener('evalmd:render', function () { render(); });
window.addEventListener('hashchange', function () {
  var before = S.q;
  readHash();
  render();
  // On a narrow screen the question is below the list: show it.
  if (S.q && S.q !== before && S.tab === 'questions' && window.matchMedia('(max-width: 820px)').matches) {
    $('q-view').scrollIntoView();
  }
});
readHash();
render();
})();
