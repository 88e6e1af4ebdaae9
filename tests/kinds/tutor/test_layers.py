"""The 8-layer system prompt: order, presence, sources, and the debrief's version."""

from __future__ import annotations

from roundtable_desktop.context.layers import join_layers
from roundtable_desktop.kinds.tutor.state import Exchange
from tests.fakes.scripted_model import ScriptedClient
from tests.kinds.tutor.conftest import CHAIN, QUOTE, TIP, make_tutor

DIALOGUE = ["persona", "behaviour", "safety", "task_override", "task_context",
            "safety_config", "language", "student_path"]
DEBRIEF = ["persona", "behaviour", "safety", "task_override", "debrief_context",
           "safety_config", "language", "student_path"]


def _names(layers):
    return [layer.name for layer in layers]


def test_a_dialogue_call_has_the_eight_layers_in_order_joined_by_a_blank_line(tutor_at_chat):
    client = ScriptedClient("Sure thing.")
    tutor = tutor_at_chat(client, provider="local")

    tutor.say("Who is your cousin?")

    request = client.requests[0]
    payload_layers = tutor.events[next(i for i, e in enumerate(tutor.events)
                                       if e.type == "call_started")].layers
    assert _names(payload_layers) == DIALOGUE
    assert request.messages[0].role == "system"
    assert request.messages[0].content == join_layers(list(payload_layers))


def test_absent_layers_are_skipped(tutor_at_chat):
    # offline has no provider override; a choice without a context label adds no path
    tutor = tutor_at_chat(scenario=TIP)
    tutor.state.choices[0].context_label = None

    tutor.state.exchanges.clear()
    layers = _names(tutor.session.snapshot().layers.values())
    assert "task_override" not in layers
    tutor.say("hello")
    started = next(e for e in tutor.events if e.type == "call_started")
    assert _names(started.layers) == [n for n in DIALOGUE
                                      if n not in ("task_override", "student_path")]


def test_a_task_file_wins_over_the_default_file():
    sources = {name: layer.source for name, layer in
               make_tutor(scenario=CHAIN).session.snapshot().layers.items()}
    assert sources["persona"] == f"tutor/tasks/{CHAIN}/persona.md"
    assert sources["behaviour"] == "tutor/default/behaviour.md"


def test_the_provider_override_is_layer_four_only_for_its_provider():
    assert "task_override" in make_tutor(provider="local").session.snapshot().layers
    assert "task_override" not in make_tutor(provider="openai").session.snapshot().layers


def test_safety_config_and_language_are_always_present(tutor_at_chat):
    tutor = tutor_at_chat(scenario=QUOTE)
    tutor.say("Where is this from?")
    started = next(e for e in tutor.events if e.type == "call_started")
    layers = {layer.name: layer for layer in started.layers}
    assert "Intensity ceiling: 4 of 5" in layers["safety_config"].text
    assert layers["language"].text.startswith("Always respond in English")


def test_the_lithuanian_cartridge_asks_for_lithuanian(tutor_at_chat):
    tutor = tutor_at_chat(scenario=CHAIN)
    tutor.say("Iš kur tai?")
    started = next(e for e in tutor.events if e.type == "call_started")
    assert "Always respond in Lithuanian" in started.request["messages"][0]["content"]


def test_the_student_path_lists_the_context_labels_of_earlier_choices(tutor_at_chat):
    tutor = tutor_at_chat(scenario=QUOTE)  # choice 0: "Share without reading"
    tutor.say("Why?")
    started = next(e for e in tutor.events if e.type == "call_started")
    path = next(layer for layer in started.layers if layer.name == "student_path")
    assert "Student selected 'Share without reading'." in path.text


def test_each_layer_is_marked_with_its_source_in_the_document(tutor_at_chat):
    tutor = tutor_at_chat(provider="local")
    tutor.state.exchanges.append(Exchange(role="student", text="hi", phase="chat"))

    payload = tutor.session.pending_payloads()[0]

    assert _names(payload.layers) == DIALOGUE
    for layer in payload.layers:
        assert f'data-layer="{layer.name}" data-source="{layer.source}"' in payload.document
    assert payload.layers[0].source == "tutor/default/persona.md"
    assert payload.layers[3].source == f"tutor/tasks/{TIP}/local.md"


def test_the_debrief_replaces_layer_five_keeps_the_rest_and_offers_no_tool(tutor_at_chat):
    client = ScriptedClient("a", "b", "The debrief.")
    tutor = tutor_at_chat(client, provider="local")
    tutor.say("Too good to be true, and a deadline.")
    tutor.say("No guarantee, I will not pay.")
    tutor.state.phase = "reveal"  # the task has ended

    assert tutor.debrief()

    request = client.requests[-1]
    started = [e for e in tutor.events if e.type == "call_started"][-1]
    assert started.purpose == "debrief" and request.purpose == "debrief"
    assert _names(started.layers) == DEBRIEF
    assert request.tools is None
    assert "Drop the Trickster's stance" in request.messages[0].content
