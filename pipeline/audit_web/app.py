"""The audit web application: browse a release, review, adjudicate, watch progress.

`create_app(store, taxonomy, access)` builds a Starlette app over the core audit store; it
holds no state of its own beyond the signed session cookie. Browsing needs no sign-in on
loopback; reviewing needs a name. Reviewers see only their own answers; the adjudication view
is open to anyone who did not review that trajectory, and shows both reviews.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, urlencode

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from pipeline.audit_web import render
from pipeline.audit_web.security import Access, SessionMiddleware, csrf_ok, session_of
from pipeline.core.audit import (
    Answer,
    AuditStore,
    TraceState,
    agreement_by_axis,
    check_name,
    parse_answer,
    read_progress,
    release_answer,
)
from pipeline.core.audit.progress import STATUSES
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES
from pipeline.core.model.trajectory import Trajectory

PAGE_SIZE = 100
FORM_LIMIT = 64 * 1024
Handler = Callable[[Request], Awaitable[Response]]


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def create_app(store: AuditStore, taxonomy: Taxonomy, access: Access) -> Starlette:
    folder = templates_dir() / "audit"
    env = Environment(
        loader=FileSystemLoader(folder),
        autoescape=select_autoescape(["html"], default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    release = store.release
    leaves = render.leaf_table(taxonomy)
    leaf_names = {
        (a["id"], leaf["id"]): leaf for a in leaves for f in a["families"] for leaf in f["leaves"]
    }

    def page(request: Request, template: str, status: int = 200, **context: Any) -> Response:
        session = session_of(request)
        html = env.get_template(template).render(
            me=session.get("name"),
            csrf=session["csrf"],
            blind=bool(session.get("blind")),
            release=release,
            token_required=access.token is not None,
            path=request.url.path,
            **context,
        )
        return HTMLResponse(html, status_code=status)

    def guarded(handler: Handler, *, signed_in: bool = False) -> Handler:
        async def endpoint(request: Request) -> Response:
            me = session_of(request).get("name")
            if me is None and (signed_in or access.token is not None):
                query = urlencode({"next": request.url.path})
                return RedirectResponse(f"/signin?{query}", status_code=303)
            try:
                return await handler(request)
            except _Refused as err:
                return page(request, "error.html", status=err.status, message=str(err))
            except InputError as err:
                return page(request, "error.html", status=400, message=str(err))

        return endpoint

    async def form_of(request: Request) -> dict[str, str]:
        body = await request.body()
        if len(body) > FORM_LIMIT:
            raise _Refused(413, "the form is too large")
        fields = {k: v[-1] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        if not csrf_ok(request, fields):
            raise _Refused(403, "the form's security token is missing or stale; reload the page")
        return fields

    def trajectory(request: Request) -> str:
        uid = str(request.path_params["uid"])
        if uid not in release.by_uid:
            raise _Refused(404, f"no trajectory {uid!r} in this release")
        return uid

    def trace_context(uid: str) -> dict[str, Any]:
        traj = release.by_uid[uid]
        current = release_answer(traj)
        return {
            "traj": traj,
            "public_id": release.public_id[uid],
            "twin": release.twin(uid),
            "episodes": render.episodes(traj),
            "tools": render.tools(traj),
            "current": current,
            "current_leaves": _leaf_views(current, leaf_names),
            "leaves": leaves,
        }

    async def overview(request: Request) -> Response:
        progress = read_progress(store)
        chosen = {k: request.query_params.get(k, "") for k in _FILTERS}
        rows = [t for t in release.trajectories if _matches(t, chosen, progress.states.get(t.id))]
        start = max(0, int(request.query_params.get("page", "1") or 1) - 1) * PAGE_SIZE
        return page(
            request,
            "overview.html",
            rows=rows[start : start + PAGE_SIZE],
            matched=len(rows),
            start=start,
            page_size=PAGE_SIZE,
            chosen=chosen,
            states=progress.states,
            progress=progress,
            statuses=STATUSES,
            domains=sorted({t.domain for t in release.trajectories}),
            subsets=sorted({tag for t in release.trajectories for tag in t.tags}),
            leaves=leaves,
            query=lambda **over: urlencode({**chosen, **over}),
        )

    async def trace(request: Request) -> Response:
        uid = trajectory(request)
        me = session_of(request).get("name")
        progress = read_progress(store)
        state = progress.states.get(uid)
        mine = state.reviewed_by(me) if state and me else None
        assigned = bool(me) and me in progress.assigned.get(uid, [])
        return page(
            request,
            "trace.html",
            **trace_context(uid),
            in_scope=state is not None,
            mine=mine,
            can_review=assigned and mine is None,
            can_adjudicate=_may_adjudicate(state, me),
        )

    async def review(request: Request) -> Response:
        uid = trajectory(request)
        form = await form_of(request)
        me = str(session_of(request)["name"])
        answer = parse_answer(form, taxonomy, source="review form", record=uid)
        store.add_reviews([(uid, me, answer)], source="web", where=[uid])
        return RedirectResponse("/next", status_code=303)

    async def next_item(request: Request) -> Response:
        given = store.assign(str(session_of(request)["name"]))
        if given:
            return RedirectResponse(f"/trace/{given[0]}", status_code=303)
        return page(request, "done.html")

    async def progress_page(request: Request) -> Response:
        progress = read_progress(store)
        people = sorted(set(progress.assigned_to) | set(progress.adjudicated_by))
        return page(
            request,
            "progress.html",
            progress=progress,
            people=people,
            statuses=STATUSES,
            agreement=agreement_by_axis(progress.states.values()),
        )

    async def adjudications(request: Request) -> Response:
        me = session_of(request).get("name")
        states = read_progress(store).states.values()
        waiting = [s for s in states if s.status in ("disagreed", "adjudicated")]
        return page(
            request,
            "adjudicate_list.html",
            waiting=[(s, _may_adjudicate(s, me)) for s in waiting],
            public_id=release.public_id,
        )

    async def adjudication(request: Request) -> Response:
        uid = trajectory(request)
        state = _adjudicable(read_progress(store).states.get(uid), session_of(request)["name"])
        reviews = [(r, _leaf_views(r.answer, leaf_names)) for r in state.reviews]
        return page(request, "adjudicate.html", **trace_context(uid), state=state, reviews=reviews)

    async def adjudicate(request: Request) -> Response:
        uid = trajectory(request)
        form = await form_of(request)
        me = str(session_of(request)["name"])
        state = _adjudicable(read_progress(store).states.get(uid), me)
        answer = parse_answer(form, taxonomy, source="adjudication form", record=uid)
        previous = state.settled or release_answer(release.by_uid[uid])
        store.add_adjudication(uid, me, answer, source="web", previous=previous)
        return RedirectResponse("/adjudicate", status_code=303)

    async def signin_page(request: Request) -> Response:
        return page(request, "signin.html", next=_local(request.query_params.get("next", "/")))

    async def signin(request: Request) -> Response:
        try:
            form = await form_of(request)
        except _Refused as err:
            return page(request, "error.html", status=err.status, message=str(err))
        if not access.token_ok(form.get("token", "")):
            return page(request, "signin.html", status=403, next="/", failed=True)
        try:
            name = check_name(form.get("name", ""), field="name", source="sign-in form")
        except InputError as err:
            return page(request, "error.html", status=400, message=str(err))
        session_of(request).update(name=name)
        return RedirectResponse(_local(form.get("next", "/")), status_code=303)

    async def signout(request: Request) -> Response:
        await form_of(request)
        session_of(request).pop("name", None)
        return RedirectResponse("/", status_code=303)

    async def prefs(request: Request) -> Response:
        form = await form_of(request)
        session_of(request)["blind"] = form.get("blind") == "1"
        return RedirectResponse(_local(form.get("next", "/")), status_code=303)

    routes = [
        Route("/", guarded(overview)),
        Route("/trace/{uid}", guarded(trace)),
        Route("/trace/{uid}/review", guarded(review, signed_in=True), methods=["POST"]),
        Route("/next", guarded(next_item, signed_in=True)),
        Route("/progress", guarded(progress_page)),
        Route("/adjudicate", guarded(adjudications, signed_in=True)),
        Route("/adjudicate/{uid}", guarded(adjudication, signed_in=True)),
        Route("/adjudicate/{uid}", guarded(adjudicate, signed_in=True), methods=["POST"]),
        Route("/signin", signin_page),
        Route("/signin", signin, methods=["POST"]),
        Route("/signout", guarded(signout), methods=["POST"]),
        Route("/prefs", guarded(prefs), methods=["POST"]),
        Mount("/static", StaticFiles(directory=folder / "static"), name="static"),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(SessionMiddleware, access=access)
    return app


_FILTERS = ("label", "leaf", "domain", "subset", "status")


def _matches(traj: Trajectory, chosen: dict[str, str], state: TraceState | None) -> bool:
    labels = traj.labels
    status = state.status if state else "not_in_scope"
    return (
        (not chosen["label"] or traj.verdict == chosen["label"])
        and (not chosen["domain"] or traj.domain == chosen["domain"])
        and (not chosen["subset"] or chosen["subset"] in traj.tags)
        and (not chosen["status"] or status == chosen["status"])
        and (
            not chosen["leaf"]
            or (labels is not None and chosen["leaf"] in [getattr(labels, a) for a in AXES])
        )
    )


def _may_adjudicate(state: TraceState | None, me: str | None) -> bool:
    return (
        state is not None
        and me is not None
        and state.status in ("disagreed", "adjudicated")
        and state.reviewed_by(me) is None
    )


def _adjudicable(state: TraceState | None, me: str) -> TraceState:
    if state is None or not _may_adjudicate(state, me):
        raise _Refused(
            403,
            "this trajectory is not waiting for adjudication, or you reviewed it yourself",
        )
    return state


def _leaf_views(answer: Answer, names: dict[tuple[str, str], dict[str, str]]) -> list[Any]:
    labels = answer.labels
    if labels is None:
        return []
    return [(axis, names[(axis, getattr(labels, axis))]) for axis in AXES]


def _local(target: str) -> str:
    """Only same-site paths as redirect targets (no `//host` or `scheme:`)."""
    return target if target.startswith("/") and not target.startswith(("//", "/\\")) else "/"
