/* The search page of the static site (blog/ops/static_site/search_pages.py): reads q and page
   from the address, searches Pagefind's indexes (one per note language) for the query and its
   glossary forms, and lists the results as the live search page does. Its messages and the
   indexes' places come from the page (data-* of #static-search).
   Loaded in <head>, not deferred: with a query, the page is marked "static-searching" before
   its first paint, so that the page's style hides the examples and keeps the results' place
   a screen high: the results arrive without moving what is already shown. */
(function () {
  "use strict";
  var root = document.documentElement;
  var params = new URLSearchParams(window.location.search);
  var query = (params.get("q") || "").trim();
  var page = Math.max(1, parseInt(params.get("page"), 10) || 1);
  if (!query) return;
  root.classList.add("static-searching");
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }

  function start() {
    var box = document.getElementById("static-search");
    if (!box) return;
    var input = document.getElementById("site-search");
    if (input) input.value = query;

    var text = box.dataset;
    var status = document.getElementById("search-status");
    var list = document.getElementById("search-results");
    var pages = document.getElementById("search-pages");
    var heading = document.querySelector(".search-intro h1");
    var perPage = parseInt(text.perPage, 10) || 20;

    function fill(template, values) {
      return template.replace(/%\((\w+)\)s/g, function (all, name) {
        return name in values ? String(values[name]) : all;
      });
    }
    function element(name, attributes, content) {
      var node = document.createElement(name);
      Object.keys(attributes || {}).forEach(function (key) { node.setAttribute(key, attributes[key]); });
      if (content !== undefined) node.textContent = content;
      return node;
    }
    /* Pagefind's excerpt is HTML with <mark>: parsed inert, only its text and marks are kept. */
    function excerpt(source, into) {
      var parsed = document.createElement("template");
      parsed.innerHTML = source;
      parsed.content.childNodes.forEach(function (node) {
        if (node.nodeType === Node.ELEMENT_NODE && node.nodeName === "MARK") {
          into.appendChild(element("mark", {}, node.textContent));
        } else {
          into.appendChild(document.createTextNode(node.textContent));
        }
      });
    }
    function pageUrl(number) {
      var next = new URLSearchParams({ q: query });
      if (number > 1) next.set("page", number);
      return "?" + next.toString();
    }
    function pagination(total) {
      var count = Math.ceil(total / perPage);
      if (count < 2) return;
      var nav = element("nav", { class: "pagination", "aria-label": text.pages });
      var items = element("ul");
      if (page > 1) {
        var previous = element("li", { class: "page-prev" });
        var back = element("a", { rel: "prev", href: pageUrl(page - 1) });
        back.appendChild(element("span", { "aria-hidden": "true" }, "←"));
        back.appendChild(document.createTextNode(" " + text.previous));
        previous.appendChild(back);
        items.appendChild(previous);
      }
      items.appendChild(element("li", { class: "page-current", "aria-current": "page" },
        fill(text.pageOf, { number: page, total: count })));
      if (page < count) {
        var next = element("li", { class: "page-next" });
        var on = element("a", { rel: "next", href: pageUrl(page + 1) }, text.next + " ");
        on.appendChild(element("span", { "aria-hidden": "true" }, "→"));
        next.appendChild(on);
        items.appendChild(next);
      }
      nav.appendChild(items);
      pages.appendChild(nav);
    }
    function show(results, total) {
      if (!total) {
        status.textContent = text.none;
        box.appendChild(element("p", { class: "search-empty" }, text.noneHint));
        return;
      }
      status.textContent = fill(total === 1 ? text.foundOne : text.foundOther, { counter: total });
      results.forEach(function (result, index) {
        var id = "result-" + ((page - 1) * perPage + index + 1) + "-title";
        var item = element("li");
        var article = element("article", { class: "note-item search-result", "aria-labelledby": id });
        var title = element("h2", { class: "note-item-title", id: id, lang: result.lang });
        title.appendChild(element("a", { href: result.url }, (result.meta && result.meta.title) || result.url));
        article.appendChild(title);
        if (result.excerpt) {
          var snippet = element("p", { class: "excerpt search-snippet", lang: result.lang });
          excerpt(result.excerpt, snippet);
          article.appendChild(snippet);
        }
        item.appendChild(article);
        list.appendChild(item);
      });
      list.hidden = false;
      pagination(total);
    }

    /* The glossary: a query that is one form of a term also searches the term's other forms. */
    function folded(value) {
      return value.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
    }
    function otherForms(glossary) {
      var key = folded(query), also = [], seen = {};
      seen[key] = true;
      (glossary.terms || []).forEach(function (forms) {
        if (!forms.some(function (form) { return folded(form[0]) === key; })) return;
        forms.forEach(function (form) {
          if (!seen[folded(form[0])]) { seen[folded(form[0])] = true; also.push(form); }
        });
      });
      return also.slice(0, glossary.max || 16);
    }
    function showAlso(also) {
      if (!also.length) return;
      var line = element("p", { class: "search-also" }, text.also);
      also.forEach(function (form, index) {
        if (index) line.appendChild(document.createTextNode(text.listSeparator));
        line.appendChild(element("span", { lang: form[1] }, form[0]));
      });
      box.insertBefore(line, box.firstChild);
    }
    /* Pagefind splits a query into words by the page's language, not its index's: for the
       Chinese index, split it as the Chinese page would. Pagefind finds no quoted Chinese phrase:
       its words are looked for instead. */
    function wordsFor(lang, words) {
      if (!/^zh/i.test(lang) || typeof Intl.Segmenter !== "function") return words;
      var phrase = /^\s*"(.+)"\s*$/.exec(words);
      var segments = Array.from(new Intl.Segmenter("zh", { granularity: "word" }).segment(phrase ? phrase[1] : words));
      var split = segments.filter(function (s) { return s.isWordLike; }).map(function (s) { return s.segment; }).join(" ");
      if (!split) return words;
      return phrase && !/[\u3400-\u9fff\uf900-\ufaff]/.test(split) ? '"' + split + '"' : split;
    }
    /* Every result of every search, each page once with its best score, best first. */
    function ranked(perIndex) {
      var best = {};
      perIndex.forEach(function (index) {
        index.searches.forEach(function (search) {
          ((search && search.results) || []).forEach(function (result) {
            var key = index.lang + " " + result.id;
            if (!best[key] || best[key].score < result.score) {
              best[key] = { id: key, score: result.score, lang: index.lang, data: result.data };
            }
          });
        });
      });
      return Object.keys(best).map(function (key) { return best[key]; })
        .sort(function (a, b) { return b.score - a.score; });
    }

    if (heading) heading.textContent = fill(text.title, { query: query });
    /* One index per note language, each read by its own copy of Pagefind (so a query is read
       the same way on either page); results are /notes/<slug>/ under this interface's prefix. */
    var bundles = JSON.parse(text.bundles || "[]");
    var where = { baseUrl: text.baseUrl || "/" };
    /* Not the notes this interface shows as their translation (the filter search_index.py gives them). */
    var options = { filters: { not: { hidden: text.interface } } };
    var extras = window.fetch(text.data).then(function (response) {
      return response.ok ? response.json() : {};
    }).catch(function () { return {}; });
    Promise.all(bundles.map(function (bundle) {
      return import(bundle.url + "pagefind.js").then(function (pagefind) {
        return pagefind.options(where).then(function () { return { pagefind: pagefind, lang: bundle.lang }; });
      });
    })).then(function (indexes) {
      return extras.then(function (data) {
        var also = otherForms(data);
        var words = [query].concat(also.map(function (form) { return form[0]; }));
        showAlso(also);
        return Promise.all(indexes.map(function (index) {
          return Promise.all(words.map(function (w) {
            return index.pagefind.search(wordsFor(index.lang, w), options);
          }))
            .then(function (searches) { return { lang: index.lang, searches: searches }; });
        }));
      }).then(function (perIndex) {
        var found = ranked(perIndex);
        var shown = found.slice((page - 1) * perPage, page * perPage);
        return Promise.all(shown.map(function (result) {
          return result.data().then(function (data) { data.lang = result.lang; return data; });
        })).then(function (data) {
          show(data, found.length);
        });
      });
    }).catch(function (error) {
      root.classList.remove("static-searching");  /* the examples again */
      if (window.console) window.console.warn("search unavailable:", error);
    });
  }
})();
