"""Does a long session stay responsive? Adding a block and scrolling, at 10 and 1,000 blocks.

Run from the repository root (agent-tui installed, e.g. ``pip install -e .``)::

    python3 benchmarks/long_session.py [--repeats R] [--baseline-max N]

A headless 120x40 Textual app hosts one ``ConversationView``; N blocks (user, assistant and
tool blocks in turn) are added in bulk, then two operations are timed, each followed by the
frames it causes (``pilot.pause()``):

* add: mount one ``AssistantBlock`` and finish it with ~10 lines of Markdown;
* scroll: one page up and back down.

The baseline is a plain ``VerticalScroll`` that keeps every Markdown widget mounted, as the
conversation did before. Mounting 1,000 of those takes minutes, so the baseline stops at
``--baseline-max`` blocks (200 unless told) and says so. Medians of ``--repeats`` runs.
Goal: adding and scrolling at 1,000 within ~1.5x of 10.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widget import Widget

from agent_tui.tui.widgets.assistant_block import AssistantBlock
from agent_tui.tui.widgets.conversation import (
    ConversationView,
    ToolBlock,
    UserBlock,
)

SIZE = (120, 40)
ANSWER = """\
## Answer {i}

The change touches **two files** and keeps the `public` API:

- `core/loop.py`: retry once on a dropped stream
- `tui/app.py`: show the retry as a notice

```python
await agent.run(prompt)
```

That is all; the tests pass.
"""
GOAL = 1.5


def session(count: int) -> list[Widget]:
    """User, assistant and tool blocks in turn."""
    blocks: list[Widget] = []
    for i in range(count):
        if i % 3 == 0:
            blocks.append(UserBlock(f"question {i}: please look at the failing test"))
        elif i % 3 == 1:
            blocks.append(AssistantBlock(ANSWER.format(i=i)))
        else:
            blocks.append(ToolBlock(f"t{i}", "read_file", f"read core/file_{i}.py", {}))
    return blocks


class Host(App[None]):
    """One scrolling pane, either the conversation or the plain baseline."""

    def __init__(self, pane: Callable[[], VerticalScroll]) -> None:
        super().__init__()
        self._pane = pane

    def compose(self) -> ComposeResult:
        yield self._pane()


async def measure(pane: Callable[[], VerticalScroll], count: int) -> tuple[float, float, int]:
    """Seconds to add one answer, seconds to scroll a page up and back, blocks mounted."""
    app = Host(pane)
    async with app.run_test(size=SIZE) as pilot:
        view = app.query_one(VerticalScroll)
        blocks = session(count)
        if isinstance(view, ConversationView):
            await view.add_many(blocks)
        else:
            await view.mount_all(blocks)
            view.scroll_end(animate=False)
        for _ in range(3):
            await pilot.pause()

        started = time.perf_counter()
        block = AssistantBlock()
        if isinstance(view, ConversationView):
            await view.add(block)
        else:
            await view.mount(block)
            view.scroll_end(animate=False)
        await block.finish(ANSWER.format(i=count))
        await pilot.pause()
        add = time.perf_counter() - started
        await pilot.pause()

        started = time.perf_counter()
        view.scroll_page_up(animate=False)
        await pilot.pause()
        view.scroll_page_down(animate=False)
        await pilot.pause()
        scroll = time.perf_counter() - started
        mounted = len(view.query("*"))
    return add, scroll, mounted


async def median(pane: Callable[[], VerticalScroll], count: int,
                 repeats: int) -> tuple[float, float, int]:
    runs = [await measure(pane, count) for _ in range(repeats)]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            runs[-1][2])


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--baseline-max", type=int, default=200,
                        help="largest N for the keep-everything-mounted baseline")
    args = parser.parse_args()
    big, base_big = 1000, min(1000, args.baseline_max)

    ours_small = await median(ConversationView, 10, args.repeats)
    ours_big = await median(ConversationView, big, args.repeats)
    base_small = await median(VerticalScroll, 10, args.repeats)
    base_large = await median(VerticalScroll, base_big, max(1, args.repeats // 2))

    print(f"Long session, headless {SIZE[0]}x{SIZE[1]}, medians of {args.repeats} runs")
    print(f"{'':28}{'N=10':>11}{f'N={big:,}':>11}{'ratio':>8}{'widgets':>16}")
    rows = [("ConversationView", ours_small, ours_big, big),
            ("baseline (all mounted)", base_small, base_large, base_big)]
    ok = True
    for name, small, large, n in rows:
        for label, index in (("add", 0), ("scroll", 1)):
            ratio = large[index] / small[index]
            suffix = "" if n == big else f"  (N={n:,})"
            print(f"{name + ' ' + label:28}{ms(small[index])}{ms(large[index])}"
                  f"{ratio:7.1f}x{small[2]:7d} ->{large[2]:6d}{suffix}")
            if name == "ConversationView":
                ok = ok and ratio <= GOAL
    if base_big < big:
        print(f"The baseline stops at N={base_big:,}: mounting 1,000 Markdown blocks takes "
              "minutes (STACK.md: 102 s, then 8.7 s per added block).")
    verdict = "met" if ok else "NOT met"
    print(f"Goal: adding and scrolling at 1,000 within ~{GOAL}x of 10 — {verdict}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
