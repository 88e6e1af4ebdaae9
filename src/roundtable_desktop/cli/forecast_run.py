"""`roundtable run --forecast`: what the run would cost, printed; nothing sent or stored.

The session is made as `run` would make it (the kind, its scenario and options, the
seed), but in memory and answered by the offline model; a `--continue`d session is read
from the store (read-only) and the completion tokens follow what its model wrote before.
engine/forecast.py plays the turns. Must not write to the store or call a model.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from roundtable_desktop.engine.forecast import completion_averages, forecast_run
from roundtable_desktop.engine.headless import HumanLine
from roundtable_desktop.engine.launch import stored_seed
from roundtable_desktop.engine.registry import SessionContext, kind_spec
from roundtable_desktop.llm.offline import OFFLINE_MODEL, OfflineClient
from roundtable_desktop.llm.pricing import load_prices
from roundtable_desktop.store.database import SessionStore

SEED = "seed"


async def print_forecast(args: argparse.Namespace, lines: Sequence[HumanLine], model: str,
                         options: dict[str, Any], db: Path | None,
                         open_store: Any) -> int:
    """Print the forecast of `run` with these arguments; returns the exit code (0)."""
    history: dict[str, float] = {}
    if args.resume:
        store: SessionStore = open_store(db)
        try:
            session_id = store.resolve_session(args.resume)
            record = store.get_session(session_id)
            history = completion_averages(store.call_summaries(session_id))
        finally:
            store.close()
        kind, seed = record.kind, stored_seed(record.meta)
        ctx = SessionContext(client=OfflineClient(delay_s=0, seed=seed), model=OFFLINE_MODEL,
                             provider="offline")
        session = kind_spec(kind).restore(ctx, record.state)
    else:
        kind, seed = args.kind, args.seed or 0
        ctx = SessionContext(client=OfflineClient(delay_s=0, seed=seed), model=OFFLINE_MODEL,
                             provider="offline", parallel=args.parallel,
                             options={**options, SEED: seed})
        session = await kind_spec(kind).create(ctx, args.scenario)
    prices = load_prices()
    forecast = await forecast_run(session, kind, args.turns, lines, model=model, seed=seed,
                                  prices=prices, history=history)
    print(f"Forecast for {forecast.steps} turn{'s' if forecast.steps != 1 else ''} of "
          f"{kind} with {model}: {forecast.sentence()}.")
    print("Nothing was sent and nothing was stored.")
    return 0
