// live.js keeps a page live. The page names its stream in the body's
// data-events; each event of the stream replaces the content of the
// elements whose data-live names the event, with HTML the server
// rendered and escaped. Without this script (or EventSource) the page
// is the same, as of its load.
(function () {
	"use strict";
	var src = document.body && document.body.getAttribute("data-events");
	if (!src || !window.EventSource) {
		return;
	}
	var es = new EventSource(src);
	var names = {};
	document.querySelectorAll("[data-live]").forEach(function (el) {
		var name = el.getAttribute("data-live");
		if (names[name]) {
			return;
		}
		names[name] = true;
		es.addEventListener(name, function (e) {
			document.querySelectorAll('[data-live="' + name + '"]').forEach(function (target) {
				target.innerHTML = e.data;
			});
		});
	});
	es.onopen = function () { document.body.classList.add("live"); };
	es.onerror = function () { document.body.classList.remove("live"); };
})();
