"""The one place that touches private parts of Textual and Rich.

chatterm draws a streaming answer with a compositor that renders only the rows an update changes and lets the
terminal scroll the conversation (`compositor`), a scrollbar that repaints only the rows a scroll changes
(`scrollbar`), an incremental word wrap that keeps a paragraph's settled lines (`wrap`), a footer that leaves out
the bindings it has no room for instead of cutting one (`footer`), two small reads and writes of widget state
(`widgets`), and a crash report without local variables or keys (`crash`). Each rests on something Textual or
Rich keeps private, so each is guarded:

- `support.custom_rendering()` is true only on the Textual series and Rich versions these parts were written
  against, when the private names they use exist, and when `CHATTERM_STOCK_RENDER` is not set;
- otherwise every entry point here gives Textual's or Rich's stock behaviour: Textual's compositor and scrollbar,
  wrapping a paragraph whole, `refresh(layout=True)`.

The crash report is no rendering choice: it follows `support.supported()` (versions and names), not the switch.

Nothing outside this package imports a private module or name of Textual or Rich
(`tests/test_architecture.py` holds it).
"""
