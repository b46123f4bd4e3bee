# ruff: noqa: RUF001  (Cyrillic word lists)
"""Small stop-word lists for the languages the analyzer stems.

Only function words that carry no retrieval signal. Negations ("not", "no", "не",
"нет") are deliberately absent: in memories they flip meaning ("prefers X" versus
"does not prefer X"), and the IDF weighting already keeps frequent terms cheap.
"""

from __future__ import annotations

ENGLISH: frozenset[str] = frozenset(
    """
    a about above after again all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself of off on once only or other our
    ours ourselves out over own same she should so some such than that the their theirs
    them themselves then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours
    yourself yourselves i'm i've i'd i'll you're you've you'd you'll he's she's it's
    we're we've we'd we'll they're they've they'd they'll that's there's what's let's
    """.split()
)

RUSSIAN: frozenset[str] = frozenset(
    """
    и в во на с со к ко о об обо от до по за из изо у для при про над под перед через без
    а но или либо да же ли бы то что чтобы как так также тоже уже ещё еще вот лишь только
    это этот эта эти этого этой этим этих тот та те того той тем тех там тут здесь
    я ты он она оно мы вы они меня тебя его её ее нас вас их мне тебе ему ей нам вам им
    мной мною тобой тобою ним ней нею ними нём нем мой моя моё мое мои твой твоя твоё твое
    твои свой своя своё свое свои наш наша наше наши ваш ваша ваше ваши себя себе собой
    был была было были быть есть будет будут является
    который которая которое которые которого которой которым которых
    когда где куда откуда чем кто чей весь вся всё все всех всем всего всей
    """.split()
)

BY_LANGUAGE: dict[str, frozenset[str]] = {"english": ENGLISH, "russian": RUSSIAN}
