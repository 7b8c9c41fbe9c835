// The dashboard's only script: it refreshes the latest discoveries and the colony while a crawl
// runs. Every value it shows comes from the JSON endpoints and goes into the page as text
// (textContent, createElement): never as markup. A link is made only for an http(s) URL.
"use strict";

(function () {
  function element(tag, value, className) {
    const node = document.createElement(tag);
    if (value !== undefined && value !== null) {
      node.textContent = String(value);
    }
    if (className) {
      node.className = className;
    }
    return node;
  }

  function isHttp(url) {
    return typeof url === "string" && /^https?:\/\/[^\s]+$/i.test(url);
  }

  // a cell holding a link to ``url`` labelled ``label``, or the label alone
  function linkOrText(url, label) {
    if (!isHttp(url)) {
      return document.createTextNode(String(label));
    }
    const anchor = element("a", label);
    anchor.href = url;
    anchor.rel = "noopener noreferrer nofollow";
    return anchor;
  }

  function showNotice(message) {
    const notice = document.getElementById("notice");
    if (!notice) {
      return;
    }
    notice.textContent = message || "";
    notice.hidden = !message;
  }

  // GET ``url`` every ``seconds``; ``apply(data)`` on success, the notice on an error
  function poll(url, seconds, apply) {
    const interval = Math.max(0.5, Number(seconds) || 2) * 1000;
    function tick() {
      fetch(url, {cache: "no-store", headers: {"Accept": "application/json"}})
        .then(function (response) {
          return response.json().then(function (data) {
            if (!response.ok) {
              throw new Error(data && data.error ? data.error : "HTTP " + response.status);
            }
            return data;
          });
        })
        .then(function (data) {
          showNotice("");
          apply(data);
        })
        .catch(function (error) {
          showNotice(String(error.message || error));
        })
        .finally(function () {
          window.setTimeout(tick, interval);
        });
    }
    window.setTimeout(tick, interval);
  }

  // -- the latest discoveries: new rows on top, the page never reloads --------------------------

  function latestRow(doc) {
    const row = document.createElement("tr");
    row.dataset.url = doc.url;
    row.className = "fresh";
    row.appendChild(element("td", doc.found_text, "time"));
    row.appendChild(element("td", doc.lag, "num"));
    const title = element("td", null, "title");
    title.appendChild(linkOrText(doc.link, doc.title || doc.url));
    row.appendChild(title);
    row.appendChild(element("td", doc.forager));
    row.appendChild(element("td", doc.language));
    row.appendChild(element("td", doc.published_text, "time"));
    return row;
  }

  function followLatest(body) {
    const limit = Number(body.dataset.limit) || 50;
    const status = document.getElementById("latest-status");
    const shown = new Set(Array.from(body.rows).map(function (row) { return row.dataset.url; }));
    poll(body.dataset.api, body.dataset.poll, function (data) {
      const fresh = data.documents.filter(function (doc) { return !shown.has(doc.url); });
      // newest first in the answer: insert the oldest new one first, each on top
      for (let i = fresh.length - 1; i >= 0; i -= 1) {
        body.insertBefore(latestRow(fresh[i]), body.firstChild);
        shown.add(fresh[i].url);
      }
      while (body.rows.length > limit) {
        shown.delete(body.lastElementChild.dataset.url);
        body.removeChild(body.lastElementChild);
      }
      if (status) {
        status.textContent = data.total + " documents found" +
          (data.source === "index" ? " (from the index)" : "");
      }
    });
  }

  // -- the colony: its table, its summary, its plots ----------------------------------------

  function colonyRow(row, columns) {
    const tr = document.createElement("tr");
    tr.className = "state-" + (row.state || "unknown");
    columns.forEach(function (column) {
      const td = element("td", null, column.align === "right" ? "num" : "");
      const value = row.cells[column.key];
      if (column.key === "weblog_head" && row.weblog_link) {
        td.appendChild(linkOrText(row.weblog_link, value));
      } else {
        td.textContent = value;
      }
      tr.appendChild(td);
    });
    return tr;
  }

  function followColony(table) {
    const head = table.tHead.rows[0];
    const body = document.getElementById("colony-rows");
    const notes = document.getElementById("colony-notes");
    const run = document.getElementById("colony-run");
    const plots = Array.from(document.querySelectorAll("img[data-src]"));
    let drawn = "";
    poll(table.dataset.api, table.dataset.poll, function (report) {
      head.replaceChildren.apply(head, report.columns.map(function (column) {
        return element("th", column.title, column.align === "right" ? "num" : "");
      }));
      body.replaceChildren.apply(body, report.rows.map(function (row) {
        return colonyRow(row, report.columns);
      }));
      notes.replaceChildren.apply(notes, report.notes.map(function (note) {
        return element("li", note);
      }));
      run.textContent = report.run_dir || "—";
      document.querySelectorAll("#colony-summary dd[data-key]").forEach(function (dd) {
        const value = report.summary[dd.dataset.key];
        dd.textContent = value === null || value === undefined ? "—" : String(value);
      });
      // the plots are drawn again only when the colony's records changed
      const state = JSON.stringify([report.rows, report.summary.last_event]);
      if (state !== drawn) {
        drawn = state;
        plots.forEach(function (img) {
          const next = new Image();
          next.onload = function () { img.src = next.src; };
          next.src = img.dataset.src + "?t=" + Date.now();
        });
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const latest = document.getElementById("latest-rows");
    if (latest) {
      followLatest(latest);
    }
    const colony = document.getElementById("colony-table");
    if (colony) {
      followColony(colony);
    }
  });
}());
