// Keyboard shortcuts and the "accept" button of the audit app. Served as a file so the
// Content-Security-Policy can forbid inline script; it never reads or inserts trace text.
"use strict";

function answerForm() {
  return document.getElementById("answer-form");
}

function acceptRelease() {
  const form = answerForm();
  if (!form) return;
  const verdict = form.dataset.releaseVerdict;
  form.querySelector(`input[name=verdict][value=${verdict}]`).checked = true;
  for (const [axis, key] of [["risk_source", "releaseRiskSource"],
                             ["failure_mode", "releaseFailureMode"],
                             ["real_world_harm", "releaseRealWorldHarm"]]) {
    form.elements[axis].value = verdict === "unsafe" ? (form.dataset[key] || "") : "";
  }
  form.requestSubmit();
}

function setVerdict(value) {
  const form = answerForm();
  if (!form) return;
  form.querySelector(`input[name=verdict][value=${value}]`).checked = true;
  if (value === "safe") {
    for (const axis of ["risk_source", "failure_mode", "real_world_harm"]) form.elements[axis].value = "";
  }
}

function go(id) {
  const link = document.getElementById(id);
  if (link) window.location.assign(link.href);
}

document.addEventListener("DOMContentLoaded", () => {
  const accept = document.getElementById("accept");
  if (accept) accept.addEventListener("click", acceptRelease);
});

document.addEventListener("keydown", (event) => {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(event.target.tagName);
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && answerForm()) {
    event.preventDefault();
    answerForm().requestSubmit();
    return;
  }
  if (event.key === "Escape" && typing) {
    event.target.blur();
    return;
  }
  if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
  const form = answerForm();
  const actions = {
    n: () => go("nav-next"),
    t: () => go("twin-link"),
    o: () => window.location.assign("/"),
    b: () => document.getElementById("blind-form").requestSubmit(),
    a: acceptRelease,
    s: () => setVerdict("safe"),
    u: () => setVerdict("unsafe"),
    "1": () => form && document.getElementById("axis-1").focus(),
    "2": () => form && document.getElementById("axis-2").focus(),
    "3": () => form && document.getElementById("axis-3").focus(),
    c: () => form && document.getElementById("comment").focus(),
  };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    action();
  }
});
