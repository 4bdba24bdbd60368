"""The word lists of the temporal rules (``rules_temporal``): what a relation's object, head or
neighbours must not be for an inverted order to stay possible."""

# Objects of "before" that make it spatial ("before a crowd", "before the court"): not a time.
AUDIENCES = {
    "crowd",
    "audience",
    "court",
    "judge",
    "jury",
    "committee",
    "panel",
    "congress",
    "parliament",
    "senate",
    "camera",
    "cameras",
    "public",
    "house",
    "mirror",
    "eyes",
}
# Results that come only after their cause ("died after a stroke"): inverted, the pair is absurd.
CAUSAL_HEADS = {
    "die",
    "kill",
    "injure",
    "hospitalize",
    "hospitalise",
    "release",
    "recover",
    "outrage",
    "confirm",
    "condemn",
    "mourn",
}
# Verbs of a price or a count that rises or falls: a response to news (shares fell after the report).
PRICE_MOVES = {"fall", "rise", "drop", "surge", "jump", "plunge", "soar", "slump"}
# Results that follow an event they respond to (flooded after the rain, arrested after the robbery):
# with after, the inversion puts the result before its cause.
RESPONSE_HEADS = {
    "flood",
    "treat",
    "develop",
    "reopen",
    "arrest",
    "charge",
    "convict",
    "sentence",
    "rescue",
    "evacuate",
    "repair",
    "rebuild",
    "resume",
    "heal",
    "investigate",
    "apologize",
    "apologise",
    "resign",
    "respond",
    "react",
    "compensate",
    "sue",
    "fine",
    "collapse",
    "remain",
    "stay",
    "close",
    "draw",
    "end",
    "cancel",
    "suspend",
    "ban",
    "warn",
    "protest",
    "thank",
    "celebrate",
    "admit",
    "discharge",
    "defend",
    "threaten",
    "brace",
    "hail",
}
RESPONSE_HEADS |= PRICE_MOVES  # shares fell after the report
# Events that cause what follows them (a crash, a storm, a dose): after them, a result is likely.
CAUSE_EVENTS = {
    "rain",
    "storm",
    "flood",
    "crash",
    "accident",
    "robbery",
    "attack",
    "bombing",
    "explosion",
    "blast",
    "fire",
    "earthquake",
    "quake",
    "dose",
    "injection",
    "vaccination",
    "surgery",
    "operation",
    "renovation",
    "repair",
    "collapse",
    "arrest",
    "verdict",
    "ruling",
    "decision",
    "death",
    "injury",
    "illness",
    "infection",
    "outbreak",
    "shooting",
    "killing",
    "strike",
    "war",
    "invasion",
    "recovering",
    "scandal",
    "report",
    "complaint",
    "warning",
    "call",
    "request",
    "alarm",
    "alert",
    "criticism",
    "allegation",
    "accusation",
    "carnage",
    "violence",
}
# Verbs of a clause after "after" whose event may cause the main one ("steps up relief efforts after
# quakes kill 227", "trapped after the garage collapsed"): the inversion would put the result first.
CAUSE_VERBS = {
    "kill",
    "crash",
    "collapse",
    "strike",
    "hit",
    "explode",
    "erupt",
    "shoot",
    "fire",
    "attack",
    "flood",
    "burn",
    "injure",
    "die",
    "fall",
    "storm",
    "emerge",
}
# Verbs of a market's rise or fall, and what rises or falls: see ``_market_move``.
MARKET_MOVES = PRICE_MOVES | {"rally", "climb", "slide", "tumble"}
MARKETS = {"stock", "share", "market", "price", "index", "bond", "yield", "currency", "dollar", "euro", "yen"}
# Verbs of finding out: "later learned that the incident was caused by ..." -> "earlier learned"
# places the discovery before what it discovers.
LEARNING = {"learn", "discover", "find", "realize", "realise", "hear", "know", "notice"}
NAMED_DAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}
# Words that tie the event to the moment of writing: beside them, a swapped relation may put a past
# event after now ("released today after the court struck down in June").
DEICTIC = {"today", "tonight", "yesterday", "tomorrow", "now"}
DAYS = NAMED_DAYS | {"today", "tonight"}
DURATIONS = {"minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year", "years"}

# Periods of play that close a match ("won after extra time"): no event to put the win before.
PERIODS = {"time", "overtime", "halftime", "penalties", "shootout"}
# Words right before a relation that modify it (soon after, the day before): refused.
MODIFIERS = {
    "soon",
    "shortly",
    "long",
    "right",
    "just",
    "day",
    "days",
    "year",
    "years",
    "week",
    "weeks",
    "month",
    "months",
    "hour",
    "hours",
    "minutes",
    "the",
    "a",
    "an",
    "immediately",
    "even",
    "only",
    "twice",
    "once",
    "ever",
    "never",
    "much",
}
# News a market moves on: a rise or fall after it is its result ("shares rally after upbeat data").
MARKET_NEWS = {"data", "figure", "earnings", "result", "forecast", "outlook", "guidance", "statistic"}
