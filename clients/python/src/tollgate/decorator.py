"""``@requires_approval``: a function that runs only once a human approved the call, with the approved arguments."""

from __future__ import annotations

import functools
import inspect
import threading
from typing import Any, Callable, Mapping, Optional, Sequence, TypeVar, Union

from ._core import WaitArg
from .aio import AsyncTollgate
from .client import Tollgate
from .errors import InvalidVerdict, TollgateError
from .verdict import Verdict

__all__ = ["requires_approval"]

F = TypeVar("F", bound=Callable[..., Any])
Client = Union[Tollgate, AsyncTollgate]
ArgsMapper = Callable[..., Mapping[str, Any]]
Verifier = Callable[[Verdict, str, Mapping[str, Any]], Optional[str]]

_defaults: dict[type, Any] = {}
_defaults_lock = threading.Lock()


def _default(kind: type) -> Any:
    # Built at the first call, not at import: a module that decorates its tools imports without TOLLGATE_TOKEN set.
    with _defaults_lock:
        if kind not in _defaults:
            _defaults[kind] = kind()
        return _defaults[kind]


def requires_approval(
    tool: Optional[str] = None,
    *,
    approvers: Optional[Sequence[str]] = None,
    prompt: Optional[str] = None,
    args: Optional[ArgsMapper] = None,
    expires_in: Optional[float] = None,
    run_id: Optional[Union[str, Callable[[], Optional[str]]]] = None,
    wait: WaitArg = True,
    client: Optional[Client] = None,
    verify: Optional[Verifier] = None,
    **fields: Any,
) -> Callable[[F], F]:
    """Gates a function (plain or ``async def``) on a human's approval.

    Each call files a request for ``tool`` (default: the function's name) with the call's arguments — or with what
    ``args`` returns, given the call's arguments by name — waits for the verdict, and then runs the function with
    the approved arguments (an approver's edits replace the matching parameters). A denial raises :class:`Denied`, an
    expiry :class:`Expired`, a cancellation :class:`Cancelled`; a gateway that cannot be reached raises
    :class:`GatewayUnreachable`. Nothing runs unless the verdict allows it (fail closed).

    The wrapper keeps the function's name, docstring and ``inspect.signature``, so frameworks that build a tool's
    schema from its signature see the original. ``client`` defaults to ``Tollgate()`` / ``AsyncTollgate()`` from the
    environment, made at the first call; ``run_id`` (a string, or a function returning one per call) names the run
    whose repeated calls collect the same verdict; ``verify(verdict, tool, args)`` may refuse an approval by
    returning a reason (see :func:`tollgate.verify.verdict_checker`).

    >>> @requires_approval(approvers=["web:alice"])  # doctest: +SKIP
    ... def delete_path(path: str) -> None:
    ...     shutil.rmtree(path)
    """

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)
        name = tool or fn.__name__

        def plan(
            call_args: tuple[Any, ...], call_kwargs: dict[str, Any]
        ) -> tuple[inspect.BoundArguments, dict[str, Any], dict[str, Any]]:
            bound = signature.bind(*call_args, **call_kwargs)
            bound.apply_defaults()
            if args is not None:
                asked = dict(args(**_named(bound)))
            else:
                asked = _named(bound)
            rid = run_id() if callable(run_id) else run_id
            options = dict(fields, approvers=approvers, prompt=prompt, expires_in=expires_in, run_id=rid, wait=wait)
            return bound, asked, options

        def finish(verdict: Verdict, bound: inspect.BoundArguments, asked: dict[str, Any]) -> inspect.BoundArguments:
            verdict.raise_for_status()
            if verify is not None:
                problem = verify(verdict, name, verdict.args)
                if problem:
                    raise InvalidVerdict(verdict, "no valid verdict for request %s: %s" % (verdict.id, problem))
            return _apply(signature, bound, asked, verdict.args) if verdict.edited else bound

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*call_args: Any, **call_kwargs: Any) -> Any:
                bound, asked, options = plan(call_args, call_kwargs)
                gate = _async_client(client)
                verdict = await gate.request(name, asked, **options)
                run = finish(verdict, bound, asked)
                return await fn(*run.args, **run.kwargs)

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*call_args: Any, **call_kwargs: Any) -> Any:
            bound, asked, options = plan(call_args, call_kwargs)
            gate = _sync_client(client)
            verdict = gate.request(name, asked, **options)
            run = finish(verdict, bound, asked)
            return fn(*run.args, **run.kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


def _sync_client(client: Optional[Client]) -> Tollgate:
    if isinstance(client, Tollgate):
        return client
    if isinstance(client, AsyncTollgate):
        raise TollgateError("a plain function needs a Tollgate client, not an AsyncTollgate")
    made: Tollgate = _default(Tollgate)
    return made


def _async_client(client: Optional[Client]) -> AsyncTollgate:
    if isinstance(client, AsyncTollgate):
        return client
    if isinstance(client, Tollgate):
        raise TollgateError("an async function needs an AsyncTollgate client, not a Tollgate")
    made: AsyncTollgate = _default(AsyncTollgate)
    return made


def _named(bound: inspect.BoundArguments) -> dict[str, Any]:
    """The call's arguments by parameter name; ``self``/``cls`` left out, ``**kwargs`` spread, ``*args`` a list."""
    named: dict[str, Any] = {}
    for param_name, value in bound.arguments.items():
        kind = bound.signature.parameters[param_name].kind
        if param_name in ("self", "cls") and next(iter(bound.signature.parameters)) == param_name:
            continue
        if kind is inspect.Parameter.VAR_KEYWORD:
            named.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            named[param_name] = list(value)
        else:
            named[param_name] = value
    return named


def _apply(
    signature: inspect.Signature, bound: inspect.BoundArguments, asked: Mapping[str, Any], approved: Mapping[str, Any]
) -> inspect.BoundArguments:
    """The call with the approver's edits: each approved value replaces the parameter of its name. A name the function
    does not take, or a required parameter the approver removed, raises: the call approved cannot be made exactly."""
    params = signature.parameters
    var_kw = next((p.name for p in params.values() if p.kind is inspect.Parameter.VAR_KEYWORD), None)
    arguments = dict(bound.arguments)
    for key in set(asked) - set(approved):
        param = params.get(key)
        if param is not None and param.default is not inspect.Parameter.empty:
            arguments[key] = param.default
        elif var_kw is not None and key in arguments.get(var_kw, {}):
            arguments[var_kw] = {k: v for k, v in arguments[var_kw].items() if k != key}
        else:
            raise TollgateError("the approver removed %r, which the call needs: not run" % key)
    for key, value in approved.items():
        param = params.get(key)
        if param is not None and param.kind is inspect.Parameter.VAR_POSITIONAL:
            arguments[key] = tuple(value)
        elif param is not None and param.kind is not inspect.Parameter.VAR_KEYWORD:
            arguments[key] = value
        elif var_kw is not None:
            arguments[var_kw] = dict(arguments.get(var_kw, {}), **{key: value})
        else:
            raise TollgateError("the approved arguments name %r, which the function does not take: not run" % key)
    return inspect.BoundArguments(signature, arguments)  # type: ignore[arg-type]
