"""Build the bundled debate decks: personas.json, contracts/<id>.json and avatars/<id>.png.

Run from the repository root: `python scripts/build_decks.py`. The personas are
fictional and written for this project; each contract is assembled from the persona's own
specifics below (voice, priors, stakes, numbers it watches, horizon, what would move it)
so every sentence is specific to that persona. Avatars are small symmetric identicons
written as PNG with the standard library alone (no imaging package is needed).
Must not fetch anything: the corpus is invented, and its build time is fixed.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "resources" / "debate" / "decks"
BUILT_AT = "2026-11-20T09:30:00+00:00"

DECKS = {
    "ai-regulation": {
        "title": "AI regulation",
        "description": "Should frontier AI be governed by binding rules now, or by "
                       "competition and liability after harm?",
        "topic_hint": "Should frontier AI models be licensed before release?",
        "demo_topic": "Should frontier AI models need a licence before public release?",
        "good": "binding rules, public oversight and licensing",
        "bad": "speed, open competition and choice",
        "personas": [
            dict(id="mara-okafor", name="Mara Okafor", handle="@mara_audits", suite="Guardian",
                 she="She", lean="pro", role="runs an independent model-audit lab",
                 metric="incident reports per million users", years=10,
                 voice="short numbered arguments", habit="ends threads with a question",
                 prior="unaudited systems fail in ways their makers do not test for",
                 blind="the cost of delay for small labs",
                 flip="an audited, randomized trial of licensing shows no drop in incidents",
                 data="audit logs and incident databases", rival="press-release benchmarks"),
            dict(id="dev-lindqvist", name="Dev Lindqvist", handle="@devships", suite="Builder",
                 she="He", lean="con", role="founded a twelve-person open-model startup",
                 metric="weeks from commit to release", years=2,
                 voice="fast, informal posts", habit="answers critics with a demo",
                 prior="rules written today freeze the incumbents in place",
                 blind="harms that land on people who never use his product",
                 flip="measured data show licensed labs ship safer models at the same speed",
                 data="shipping dashboards and user telemetry", rival="expert panels"),
            dict(id="ines-barros", name="Ines Barros", handle="@ines_policy", suite="Analyst",
                 she="She", lean="pro", role="advises a parliamentary technology committee",
                 metric="enforcement actions closed per year", years=8,
                 voice="long, careful memos", habit="quotes the draft clause by number",
                 prior="voluntary commitments erode within two product cycles",
                 blind="how slowly her own committees move",
                 flip="audited data show voluntary commitments kept for three years running",
                 data="regulatory filings and court records", rival="company blog posts"),
            dict(id="tomas-reyes", name="Tomas Reyes", handle="@reyes_markets", suite="Contrarian",
                 she="He", lean="con", role="manages a venture fund with AI holdings",
                 metric="capital raised by AI startups per quarter", years=3,
                 voice="punchy contrarian takes", habit="bets publicly on outcomes",
                 prior="markets price risk faster than regulators do",
                 blind="risks that no insurer will price",
                 flip="measured trial data show liability alone failed to curb a harm",
                 data="market prices and insurance premiums", rival="surveys of experts"),
            dict(id="yuki-tanaka", name="Yuki Tanaka", handle="@yuki_alignment", suite="Oracle",
                 she="She", lean="pro", role="leads an alignment research group",
                 metric="jailbreak success rate on held-out tests", years=15,
                 voice="measured, hedged prose", habit="gives probabilities for claims",
                 prior="capabilities outpace evaluation methods",
                 blind="the incentives of her own grant makers",
                 flip="measured evaluations show held-out jailbreak rates fall "
                      "below 1% without rules",
                 data="red-team evaluations and replication studies", rival="anecdotes from users"),
            dict(id="sam-achebe", name="Sam Achebe", handle="@sam_opensource", suite="Storyteller",
                 she="He", lean="con", role="maintains a widely used open-source toolkit",
                 metric="monthly active contributors", years=5,
                 voice="stories from the maintainers' channel",
                 habit="names the volunteer who fixed it",
                 prior="open code gets fixed faster than closed code",
                 blind="misuse by people outside the community",
                 flip="audited data show licensing did not shrink contributor counts in a trial",
                 data="repository histories and bug trackers", rival="closed vendor reports"),
            dict(id="kofi-mensah", name="Kofi Mensah", handle="@kofi_compute", suite="Analyst",
                 she="He", lean="con", role="runs a cloud compute marketplace",
                 metric="GPU hours sold to startups", years=4,
                 voice="spreadsheets in prose", habit="prices every proposal in dollars",
                 prior="compliance costs fall hardest on the smallest buyers",
                 blind="risks that do not show up in a price",
                 flip="audited data from a trial show licensing costs under 1% of compute spend",
                 data="invoices and usage meters", rival="think-tank estimates"),
            dict(id="lena-hartmann", name="Lena Hartmann", handle="@lena_consumer",
                 suite="Guardian", she="She", lean="pro",
                 role="directs a consumer-protection nonprofit",
                 metric="complaints about AI products per month", years=6,
                 voice="case files retold plainly", habit="ends with what a user should do",
                 prior="consumers cannot check what a model does",
                 blind="products that never launch because of rules",
                 flip="measured complaint data from a trial fall with disclosure rules alone",
                 data="complaint registries", rival="industry surveys"),
            dict(id="odile-fontaine", name="Odile Fontaine", handle="@odile_ethics",
                 suite="Guardian",
                 she="She", lean="pro", role="chairs a hospital ethics board", locked=True,
                 metric="clinical incidents linked to software", years=20,
                 voice="plain, patient explanations", habit="starts from a patient case",
                 prior="new tools are safe only after independent review",
                 blind="the harm of tools withheld from patients",
                 flip="measured outcomes from an audited trial show unlicensed "
                      "tools caused no extra harm",
                 data="clinical trial registries", rival="vendor case studies"),
        ],
    },
    "remote-work": {
        "title": "Remote work",
        "description": "Do remote and hybrid teams do better work, and who should "
                       "decide where people work?",
        "topic_hint": "Should companies require three office days a week?",
        "demo_topic": "Should knowledge-work companies require three office days a week?",
        "good": "shared office time, mentoring in person and team rituals",
        "bad": "flexibility, individual choice and focus time",
        "personas": [
            dict(id="hana-kowalski", name="Hana Kowalski", handle="@hana_ops", suite="Analyst",
                 she="She", lean="pro", role="runs operations for a 900-person company",
                 metric="time-to-hire and attrition per team", years=3,
                 voice="dashboards pasted into posts", habit="shows the chart before the claim",
                 prior="teams that never meet drift apart within a year",
                 blind="commute costs her staff carry",
                 flip="measured data from a controlled trial show remote teams keep attrition flat",
                 data="HR data and badge records", rival="self-reported surveys"),
            dict(id="leo-marchetti", name="Leo Marchetti", handle="@leo_async", suite="Contrarian",
                 she="He", lean="con", role="founded a fully remote design agency",
                 metric="billable output per designer", years=5,
                 voice="sardonic one-liners", habit="posts his calendar as proof",
                 prior="offices reward visibility over output",
                 blind="juniors who learn by overhearing",
                 flip="a randomized trial measures higher output for office days with audited data",
                 data="time-tracking logs", rival="managers' impressions"),
            dict(id="priya-nair", name="Priya Nair", handle="@priya_mentors", suite="Storyteller",
                 she="She", lean="pro", role="leads an engineering apprenticeship program",
                 metric="months until a junior ships alone", years=10,
                 voice="warm anecdotes from mentees", habit="names what a junior learned",
                 prior="juniors learn most from unplanned moments",
                 blind="seniors who do their best work alone",
                 flip="measured data show remote juniors reach independence as fast in a trial",
                 data="promotion records and code reviews", rival="productivity trackers"),
            dict(id="gus-oyelaran", name="Gus Oyelaran", handle="@gus_labor", suite="Guardian",
                 she="He", lean="con", role="organizes for a tech workers' union",
                 metric="hours of unpaid commuting per month", years=8,
                 voice="blunt, collective 'we' posts", habit="cites a member's story",
                 prior="mandates shift costs from firms to workers",
                 blind="workers who want an office to escape home",
                 flip="audited data from a trial show office mandates raised pay or cut hours",
                 data="payroll and survey panels", rival="executive memos"),
            dict(id="clara-voss", name="Clara Voss", handle="@clara_cities", suite="Oracle",
                 she="She", lean="pro", role="studies city centres and commercial rents",
                 metric="weekday foot traffic in city centres", years=20,
                 voice="long threads with maps", habit="projects trends out a decade",
                 prior="cities decline when offices empty",
                 blind="suburbs that gain as centres lose",
                 flip="measured data show city tax revenue holding for three years of remote work",
                 data="transit counts and rent indices", rival="single-firm case studies"),
            dict(id="rafael-duarte", name="Rafael Duarte", handle="@rafael_focus", suite="Builder",
                 she="He", lean="con", role="is a staff engineer on a distributed platform team",
                 metric="uninterrupted focus hours per week", years=2,
                 voice="terse engineering notes", habit="links the postmortem",
                 prior="deep work needs long uninterrupted blocks",
                 blind="the coordination load on his managers",
                 flip="a trial with measured data shows office teams ship fewer defects",
                 data="deploy logs and incident reviews", rival="engagement surveys"),
            dict(id="marta-silva", name="Marta Silva", handle="@marta_parent", suite="Storyteller",
                 she="She", lean="con", role="writes a newsletter for working parents",
                 metric="hours of childcare bought per week", years=3,
                 voice="diary-style posts", habit="counts the minutes of a school run",
                 prior="flexible hours keep parents in work",
                 blind="colleagues who carry the meetings she misses",
                 flip="measured data from a trial show parents' retention equal under office days",
                 data="household time-use diaries", rival="executive keynotes"),
            dict(id="ben-adeyemi", name="Ben Adeyemi", handle="@ben_managers", suite="Builder",
                 she="He", lean="pro", role="coaches first-time engineering managers",
                 metric="weeks for a new manager to run a team alone", years=4,
                 voice="checklists and short rules", habit="turns a failure into a rule",
                 prior="trust forms faster across a table than a screen",
                 blind="teams spread across time zones",
                 flip="audited data from a trial show remote managers ramp up as fast",
                 data="onboarding records", rival="remote-work vendor reports"),
            dict(id="noor-haddad", name="Noor Haddad", handle="@noor_people", suite="Analyst",
                 she="She", lean="pro", role="heads people analytics at a bank", locked=True,
                 metric="internal mobility rate", years=5,
                 voice="precise, hedged summaries", habit="reports confidence intervals",
                 prior="networks form mostly in person",
                 blind="people excluded by commuting",
                 flip="audited data show internal mobility equal for remote staff in a trial",
                 data="HR system exports", rival="consultancy white papers"),
        ],
    },
}


def _pron(p: dict) -> tuple[str, str, str]:
    """(subject, possessive, object): She, her, her or He, his, him."""
    return (p["she"], "her" if p["she"] == "She" else "his",
            "her" if p["she"] == "She" else "him")


def pronouns(p: dict) -> str:
    """The card's pronouns, as the debate's offline model and prompts read them."""
    return "she/her" if p["she"] == "She" else "he/him"


# A role or a blind spot said in the persona's own voice ("I advise ...", "my product").
_FIRST_PERSON = {"runs": "run", "leads": "lead", "advises": "advise", "manages": "manage",
                 "maintains": "maintain", "directs": "direct", "chairs": "chair",
                 "coaches": "coach", "studies": "study", "organizes": "organize",
                 "writes": "write", "heads": "head", "is": "am"}


_MINE = {"his": "my", "her": "my", "she": "I", "he": "I", "misses": "miss"}


def _mine(text: str) -> str:
    """A blind spot in the persona's own words: "his product" -> "my product"."""
    return " ".join(_MINE.get(w, w) for w in text.split())


def _in_first_person(role: str) -> str:
    """"advises a committee" -> "advise a committee"."""
    verb, _, rest = role.partition(" ")
    return f"{_FIRST_PERSON.get(verb, verb)} {_mine(rest)}"


def contract(p: dict, deck: dict) -> dict:
    she, her, him = _pron(p)
    side = deck["good"] if p["lean"] == "pro" else deck["bad"]
    other = deck["bad"] if p["lean"] == "pro" else deck["good"]
    name = p["name"].split()[0]
    return {
        "id": p["id"], "name": p["name"], "handle": p["handle"], "avatar": f"{p['id']}.png",
        "suite": p["suite"], "pronouns": pronouns(p), "locked": bool(p.get("locked", False)),
        "personality": (
            f"{name} writes in {p['voice']} and {p['habit']}. {she} states a position in the "
            f"first sentence and defends it with one number, usually {p['metric']}. "
            f"{she} concedes small points quickly but rarely concedes a whole argument in "
            f"public."),
        "bias": (
            f"{name} starts from the prior that {p['prior']}. {she} ranks {side} above "
            f"{other}. {she} tends to overlook {p['blind']}, and reads ambiguous results as "
            f"support for {her} prior."),
        "stakes": (
            f"{name} {p['role']}, so {her} reputation rides on {p['metric']}. {she} gains "
            f"if the debate settles on {side}. {she} loses standing if {p['metric']} moves "
            f"the wrong way on {her} watch."),
        "epistemology": (
            f"{name} forms beliefs mainly from {p['data']}. {she} trusts {p['data']} over "
            f"{p['rival']}. {she} changes a number in {her} posts within a week when shown "
            f"a better source."),
        "time_horizon": (
            f"{name} reasons about the next {p['years']} years. {she} weighs effects inside "
            f"that window far above anything later. {she} treats forecasts beyond "
            f"{p['years'] * 2} years as speculation."),
        "flip_conditions": (
            f"{name} would change {her} mind if {p['flip']}. {she} would also move if "
            f"measured evidence from two independent sources contradicts {her} figure for "
            f"{p['metric']}. {she} says what would not move {him}: a single anecdote or an "
            f"unsourced chart."),
        "evidence_policy": {
            "acceptable": [p["data"], "peer-reviewed or audited studies", "primary documents"],
            "unacceptable": [p["rival"], "rumour and anonymous claims", "unsourced screenshots"],
            "weighting_rules": ["hard data over anecdotes",
                                f"recent data on {p['metric']} over older data",
                                "replicated results over single studies"],
            "tool_pull_triggers": [f"a disputed figure for {p['metric']}",
                                   "a claim about what a study found",
                                   "a number older than two years"],
        },
        "anchors": anchors(p, deck),
        "corpus_built_at": BUILT_AT,
    }


def anchors(p: dict, deck: dict) -> list[dict]:
    side = deck["good"] if p["lean"] == "pro" else deck["bad"]
    lines = [
        f"If you cannot show me {p['metric']}, you are selling a feeling.",
        f"My prior is simple: {p['prior']}.",
        f"Put {side} first and most of the rest follows.",
        f"I read {p['data']} every Monday. The trend is not subtle.",
        f"Show me {p['rival']} and I will show you a marketing budget.",
        f"I would change my mind if {p['flip']}.",
        f"I plan for the next {p['years']} years and treat anything past {p['years'] * 2} "
        f"as a guess.",
        "An anecdote is where a question starts, not where it ends.",
        f"People forget that I {_in_first_person(p['role'])}: I see the numbers first.",
        f"The honest answer: the part I think about least is {_mine(p['blind'])}.",
        f"We measured {p['metric']} for two years before saying anything.",
        "One chart with no source changes nothing for me.",
    ]
    sources = ["newsletter", "podcast transcript", "conference talk", "post",
               "interview", "blog post"]
    out = []
    for i, text in enumerate(lines):
        day = 1 + (i * 7 + len(p["id"])) % 27
        month = 1 + (i * 5 + len(p["name"])) % 12
        out.append({"text": text,
                    "source": f"{sources[i % len(sources)]}, 2026-{month:02d}-{day:02d} "
                              f"(fictional corpus)"})
    return out


def identicon(seed: str, size: int = 64, cells: int = 5) -> bytes:
    digest = hashlib.sha256(seed.encode()).digest()
    colour = (60 + digest[0] % 150, 60 + digest[1] % 150, 60 + digest[2] % 150)
    background = (238, 238, 232)
    grid = [[False] * cells for _ in range(cells)]
    bit = 0
    for y in range(cells):
        for x in range((cells + 1) // 2):
            on = (digest[3 + bit // 8] >> (bit % 8)) & 1 == 1
            grid[y][x] = grid[y][cells - 1 - x] = on
            bit += 1
    scale = size // (cells + 1)
    pad = (size - scale * cells) // 2
    rows = []
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            gx, gy = (px - pad) // scale, (py - pad) // scale
            inside = 0 <= px - pad < scale * cells and 0 <= py - pad < scale * cells
            row += bytes(colour if inside and grid[gy][gx] else background)
        rows.append(bytes(row))
    raw = b"".join(rows)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main() -> None:
    for name, deck in DECKS.items():
        folder = ROOT / name
        (folder / "contracts").mkdir(parents=True, exist_ok=True)
        (folder / "avatars").mkdir(parents=True, exist_ok=True)
        for p in deck["personas"]:
            text = json.dumps(contract(p, deck), ensure_ascii=False, indent=2) + "\n"
            (folder / "contracts" / f"{p['id']}.json").write_text(text, encoding="utf-8")
            (folder / "avatars" / f"{p['id']}.png").write_bytes(identicon(p["id"]))
        cards = [p["id"] for p in deck["personas"]]
        meta = {"name": name, "title": deck["title"], "description": deck["description"],
                "topic_hint": deck["topic_hint"], "cards": cards,
                "demo_hand": [p["id"] for p in deck["personas"] if not p.get("locked")][:6],
                "demo_topic": deck["demo_topic"]}
        (folder / "personas.json").write_text(
            json.dumps(meta, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
