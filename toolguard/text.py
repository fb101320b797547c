"""Characters that make text read differently from its bytes: shared by display text and reports."""

# Unicode's Bidi_Control characters: they reorder what a reader sees ("Trojan Source").
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# C0 controls (ESC starts ANSI sequences), DEL and C1 controls.
CONTROLS = "\x00-\x1f\x7f-\x9f"
