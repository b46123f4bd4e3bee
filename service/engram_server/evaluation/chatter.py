"""Small talk: the filler that fills a generated conversation around its facts.

Real conversations are mostly this: greetings, errands, weather, quick questions
to the assistant. It uses everyday words that questions use too ("work", "dinner",
"trip", "dog"...), so a retriever has to tell a passing mention from an answer.
Templates have `{slot}` fields filled from `SLOTS`, which keeps the lines of one
conversation distinct.
"""

from __future__ import annotations

import random
import string
from typing import TypeVar

T = TypeVar("T")

SLOTS: dict[str, tuple[str, ...]] = {
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"),
    "veg": ("carrots", "parsnips", "cauliflower", "sweet potatoes", "Brussels sprouts", "beetroot"),
    "minutes": ("25", "30", "35", "40", "45"),
    "show": (
        "the new heist series", "that baking competition", "a documentary about octopuses",
        "the detective show everyone talks about", "an old sitcom",
    ),
    "errand": (
        "return a parcel", "renew my passport", "get the boiler serviced",
        "pick up a prescription", "drop off dry cleaning", "book a dentist appointment",
    ),
    "appointment": ("dentist", "GP", "haircut", "eye test", "physio", "vet"),
    "relative": ("my mum", "my dad", "my aunt", "my grandmother", "my cousin", "my uncle"),
    "weather": ("pouring", "freezing", "boiling hot", "foggy", "windy", "gloriously sunny"),
    "dish": (
        "a lentil curry", "shakshuka", "mushroom risotto", "fish tacos", "a tray bake",
        "miso soup", "pad thai", "a big salad",
    ),
    "gadget": ("phone", "laptop", "headphones", "e-reader", "router", "smartwatch"),
    "count": ("three", "four", "five", "six", "seven"),
    "topic": (
        "a pitch deck", "the quarterly report", "a cover letter", "a speech for a leaving do",
        "a complaint to my landlord", "a thank-you note",
    ),
    "word": ("ubiquitous", "ephemeral", "serendipity", "quixotic", "laconic", "petrichor"),
}  # fmt: skip

GREETINGS = (
    ("Hey, morning!", "Good morning, {user}! What's on your mind today?"),
    ("Hi there.", "Hi {user}, nice to hear from you. How's your day going?"),
    ("Evening! Got a minute?", "Always. What can I do for you this evening?"),
    ("Hello again.", "Hello {user}! How have you been since we last talked?"),
    ("Hey, quick check-in.", "Hey! Go ahead, I'm listening."),
    ("Hi, it's me again, {day} already.", "Hi {user}! Happy {day}. What's up?"),
    ("Morning. Coffee in hand, ready to think.", "Love that. What are we thinking about?"),
    ("Hey hey.", "Hey {user}! How are things?"),
    ("Good afternoon!", "Good afternoon! What would you like to work on?"),
    ("Hiya, long day.", "Sorry to hear it's been long. Want to talk it through?"),
)

CLOSINGS = (
    ("Okay, I have to run. Thanks!", "Anytime, {user}. Talk soon!"),
    ("That's all for now, cheers.", "Cheers! Have a good rest of your day."),
    ("Right, off to bed. Night!", "Good night, sleep well."),
    ("Thanks, that helped a lot.", "Glad to hear it. See you next time."),
    ("Gotta go, meeting starting.", "Good luck with the meeting!"),
    ("I'll stop there for today.", "Sounds good. I'm here whenever you need me."),
    ("Enough for today, brain is full.", "Fair enough! Rest up."),
    ("Okay, back to it. Bye!", "Bye {user}, good luck with everything."),
    ("Let's pick this up another time.", "Of course. Whenever suits you."),
    ("Thanks for listening.", "Always happy to. Take care."),
)

# Replies to a fact the user shares when the scenario gives none of its own.
ACKNOWLEDGEMENTS = (
    "Good to know, thanks for telling me.",
    "Noted! I'll remember that.",
    "Oh, interesting. How do you feel about it?",
    "That makes sense.",
    "Thanks for the update.",
    "Got it.",
    "Ha, I can imagine.",
    "That sounds like a lot. How are you holding up?",
    "Oh nice, that's really something.",
    "Understood, I'll keep it in mind.",
    "Fair enough!",
    "Tell me more whenever you like.",
    "Sounds like quite a week.",
    "I hear you.",
    "That's good to hear.",
    "Oh wow, okay!",
    "Makes total sense to me.",
    "Thanks, that's useful context.",
    "Right, I'll remember.",
    "Huh, I didn't know that.",
    "Okay, noted for later.",
    "Oh! Thanks for sharing that.",
    "Interesting, I'll file that away.",
    "Ah, that explains a lot.",
    "Good, glad you mentioned it.",
    "Mm, that's worth remembering.",
    "Sure, that's fair.",
    "Oh no, that's annoying.",
    "Ha! Classic.",
    "Well, that's life sometimes.",
    "Oh, I see.",
    "Yes, I can see why.",
    "That sounds about right.",
    "Nice one.",
    "Right, thanks.",
    "Alright, good to hear.",
    "Oh dear.",
    "Totally understandable.",
    "Honestly, same.",
    "Very relatable.",
)

EXCHANGES = (
    ("How long should I roast {veg} at 200 degrees?",
     "About {minutes} minutes, turning them once halfway through."),
    ("It's {weather} here again today.", "{weather} again? A good day to stay in with a tea."),
    ("Just finished watching {show}, not sure how I feel about the ending.",
     "Endings like that divide people. What bothered you about it?"),
    ("I need to {errand} before {day}, remind me if I forget.",
     "Will do: {errand} by {day}."),
    ("Had a long call with {relative} last night.", "How is {relative} doing?"),
    ("{relative} says hello, by the way.", "Ha, hello back to {relative}! That's sweet."),
    ("Thinking of making {dish} for dinner, too ambitious for a weeknight?",
     "Not at all, it's quick if you prep the veg first."),
    ("My {gadget} is acting up again.", "Have you tried turning the {gadget} off and on again?"
     " Seriously."),
    ("Can you help me tighten up {topic}?", "Sure, paste it in and I'll suggest edits."),
    ("What does '{word}' actually mean?",
     "Good question; it's one of those words people use loosely. I can give you examples."),
    ("I walked {count} kilometres today without noticing.", "{count} kilometres is a proper"
     " walk! Nice."),
    ("Traffic was horrendous this morning.", "Ugh. Podcasts help, a bit."),
    ("The printer at the office jammed {count} times today.",
     "{count} jams in a day? Printers are a universal enemy."),
    ("I finally cleaned out the fridge.", "That's a satisfying job once it's done."),
    ("Do you think it's rude to leave a group chat?",
     "Not if you mute it quietly; nobody notices a muted chat."),
    ("My plants are dying and I don't know why.", "Overwatering is the usual culprit."),
    ("I signed up for a newsletter by accident and now I get {count} emails a day.",
     "Unsubscribe links are your friend."),
    ("What's a good way to say no to extra work politely?",
     "Name what you're working on and ask which one should move."),
    ("It's {weather} and I forgot my umbrella.", "{weather} and no umbrella, classic."),
    ("I can't decide between {dish} and {dish2} tonight.", "{dish} or {dish2}: go with whichever"
     " needs fewer pans."),
    ("I spent an hour untangling headphone cables, why.", "A rite of passage, sadly."),
    ("Any tips for falling asleep faster?",
     "Same bedtime every night, no screens for the last half hour, a cool room."),
    ("Our internet went down for {count} hours.", "{count} hours offline is brutal. Did you"
     " get anything done?"),
    ("I'm thinking of repainting the hallway.", "Any colour in mind?"),
    ("The bus was {minutes} minutes late again.", "{minutes} minutes? That's really"
     " annoying."),
    ("I made {dish} and it was actually good!", "Nice work! Write down how you made {dish}."),
    ("How do I get candle wax off a tablecloth?",
     "Freeze it, scrape it off, then iron it between paper towels."),
    ("I keep forgetting to drink water during the day.", "A big bottle on the desk helps."),
    ("What's the difference between baking soda and baking powder?",
     "Powder already has the acid in it; soda needs something acidic in the recipe."),
    ("I finally booked that {appointment} appointment.",
     "Great, the {appointment} is one less thing on the list."),
    ("Someone parked across our driveway again.", "So annoying. Did you leave a note?"),
    ("My neighbour is drilling at eight on a {day}.", "Noise-cancelling headphones time."),
    ("I think I'm coming down with a cold.", "Rest and fluids. Don't push through it."),
    ("Can you explain compound interest in one sentence?",
     "You earn interest on your interest, so growth speeds up over time."),
    ("We played cards until midnight, I lost every round.", "Sounds fun anyway!"),
    ("I've been rewatching {show} on repeat.", "Comfort viewing is valid, even {show}."),
    ("The supermarket was out of {veg}.", "No {veg}? Anything you could swap in?"),
    ("I tidied my desk and now I can't find anything.", "The eternal paradox of tidying."),
    ("Is it normal to be this tired on a {day}?", "Very normal for a {day}. Be kind to"
     " yourself."),
    ("How many tablespoons are in a cup?", "Sixteen tablespoons in a US cup."),
    ("I finally fixed the squeaky door.", "A small win, but a satisfying one."),
    ("There's a fox in the garden again.", "They're bold, aren't they?"),
    ("I got a parking ticket, I was two minutes late.", "That's painful. Appeal it maybe?"),
    ("The heating broke, it's {count} degrees inside.", "{count} degrees indoors, oh no. Have"
     " you called someone?"),
    ("Do you know a quick lunch idea?", "Eggs on toast with whatever greens you have."),
    ("I've started journaling again.", "How's it going so far?"),
    ("The kettle's making a strange noise.", "Probably limescale. Vinegar helps."),
    ("Write me a haiku about {weather} weather.", "Grey clouds gather slow / the city folds"
     " its umbrellas / I stay in my chair."),
    ("My {gadget} battery lasts about {count} hours now.", "Only {count} hours? Might be time"
     " for a new battery."),
    ("I accidentally replied-all to the whole department.", "It happens to everyone once."),
    ("My feet hurt from standing all day.", "Put them up tonight, you've earned it."),
    ("I'm so behind on laundry.", "Put on a podcast and knock out one load."),
    ("Saw a double rainbow on the way home.", "Lucky! Did you get a photo?"),
    ("I forgot my keys and had to wait outside for {minutes} minutes.", "Oof, {minutes} minutes"
     " outside. Spare key time?"),
    ("Should I get a standing desk?", "Try standing at the kitchen counter a few days first."),
    ("The dishwasher smells weird.", "Clean the filter; it's usually that."),
    ("Got stuck behind a tractor for {minutes} minutes.", "{minutes} minutes of tractor: rural"
     " traffic at its finest."),
    ("I'm trying to cut down on screen time.", "Grey-scale mode on the phone helps a lot."),
    ("A pigeon stole half my sandwich.", "Bold pigeon. Respect, honestly."),
    ("{relative} sent me {count} voice notes in a row.",
     "{count} voice notes! Were they good news at least?"),
    ("How do I stop my glasses fogging up?", "A drop of washing-up liquid, rubbed in and"
     " wiped off."),
    ("I tried yoga from a video, it was harder than it looked.", "It always is the first time."),
    ("Why do I always get hungry at four?", "Lunch wears off. A snack around three helps."),
)  # fmt: skip


# Real messages rarely hold one clean sentence: a fact arrives wrapped in chat.
# Shared facts get an opener, an aside or both, which dilutes a whole-message
# embedding the way real turns do while leaving every word of the fact in place.
OPENERS = (
    "Ugh, what a week.", "Oh, before I forget:", "Random thought, but", "So, update:",
    "Okay, news.", "Not sure if I mentioned it, but", "Quick one.", "Funny story.",
    "Anyway.", "Right, so.", "Sorry, I've been all over the place today.",
    "Totally unrelated, but", "Hmm, where was I.", "Long day, but good.",
)  # fmt: skip
ASIDES = (
    "Also the washing machine is making that noise again.",
    "The kids have been up since five, send coffee.",
    "I really need a proper holiday at some point.",
    "Anyway, how's your day going?",
    "The weather can't make up its mind today.",
    "My inbox is a disaster, by the way.",
    "I should probably eat something that isn't toast.",
    "Still haven't unpacked from last weekend, obviously.",
    "The neighbours are having a party again, great.",
    "Also I finally finished that jigsaw puzzle.",
    "Not that anyone asked!",
    "The train was packed this morning, by the way.",
    "Anyway, enough about that.",
    "I'm writing this on my phone so excuse the typos.",
    "Also I think I left the oven on, brb.",
    "Life is very busy right now.",
    "My tea went cold while I was typing this.",
    "Oh, and the garden looks amazing after the rain.",
)
PAD_OPENER_CHANCE = 0.35
PAD_ASIDE_CHANCE = 0.45

Pair = tuple[str, str]


class Chatter:
    """Draws filler lines for one conversation, never the same line twice.

    Lines must be distinct within a conversation: identical content in one space
    is one memory, so a repeated line would silently merge two turns.
    """

    def __init__(self, rng: random.Random, user: str) -> None:
        self.rng = rng
        self.user = user
        self.used: set[str] = set()
        self._greetings = self._shuffled(GREETINGS)
        self._closings = self._shuffled(CLOSINGS)
        self._acks = self._shuffled(ACKNOWLEDGEMENTS)

    def _shuffled(self, items: tuple[T, ...]) -> list[T]:
        order = list(items)
        self.rng.shuffle(order)
        return order

    def _fill(self, template: str, values: dict[str, str]) -> str:
        text = template.format(user=self.user, **values)
        return text[:1].upper() + text[1:]

    def _values(self, *templates: str) -> dict[str, str]:
        """Slot values for `templates` (`dish2` is a second, different `dish`)."""
        values: dict[str, str] = {}
        for template in templates:
            for _, slot, _, _ in string.Formatter().parse(template):
                if not slot or slot == "user" or slot in values:
                    continue
                options = [o for o in SLOTS[slot.rstrip("0123456789")] if o not in values.values()]
                values[slot] = self.rng.choice(options)
        return values

    def _unused(self, pair: Pair, tries: int) -> Pair | None:
        for _ in range(tries):
            values = self._values(*pair)
            user, assistant = self._fill(pair[0], values), self._fill(pair[1], values)
            if user not in self.used and assistant not in self.used and user != assistant:
                self.used.update((user, assistant))
                return user, assistant
        return None

    def _rotate(self, pool: list[Pair]) -> Pair:
        for _ in range(len(pool)):
            pair = pool.pop(0)
            pool.append(pair)
            filled = self._unused(pair, tries=10)
            if filled is not None:
                return filled
        raise LookupError("every line of the pool is used in this conversation")

    def pad(self, text: str) -> str:
        """`text` as a real message might carry it: maybe an opener, maybe an aside."""
        if self.rng.random() < PAD_OPENER_CHANCE:
            opener = self.rng.choice(OPENERS)
            joined = text if opener.endswith((":", "but")) else text[:1].upper() + text[1:]
            if opener.endswith("but"):
                joined = text[:1].lower() + text[1:] if not text.startswith("I") else text
            text = f"{opener} {joined}"
        if self.rng.random() < PAD_ASIDE_CHANCE:
            text = f"{text} {self.rng.choice(ASIDES)}"
        return text

    def greeting(self) -> Pair:
        return self._rotate(self._greetings)

    def closing(self) -> Pair:
        return self._rotate(self._closings)

    def small_talk(self) -> Pair:
        """A filler exchange whose lines this conversation has not used yet."""
        for _ in range(500):
            filled = self._unused(self.rng.choice(EXCHANGES), tries=3)
            if filled is not None:
                return filled
        raise LookupError("small talk is used up for this conversation")

    def acknowledgement(self) -> str:
        """A generic reply to a shared fact."""
        for _ in range(len(self._acks)):
            ack = self._acks.pop(0)
            self._acks.append(ack)
            if ack not in self.used:
                self.used.add(ack)
                return ack
        raise LookupError("acknowledgements are used up for this conversation")
