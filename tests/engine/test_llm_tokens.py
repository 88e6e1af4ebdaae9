"""One token estimator (domain/tokens.py) serves context budgets, the offline model's
usage and the usage estimated when a server reports none."""

from __future__ import annotations

import asyncio
import inspect

from roundtable_desktop.context import tokens as context_tokens
from roundtable_desktop.domain import tokens
from roundtable_desktop.domain.calls import ChatMessage, ChatRequest
from roundtable_desktop.llm import chat_chunks, offline
from roundtable_desktop.llm.client import Finish
from roundtable_desktop.llm.offline import OfflineClient, OfflinePolicies

SYSTEM = "You are a careful participant in a long meeting about videos."
USER = "<main><p>Pick three videos for a rainy afternoon.</p></main>"


def test_context_tokens_is_the_domain_estimator():
    assert context_tokens.estimate_tokens is tokens.estimate_tokens
    assert context_tokens.counter_name is tokens.counter_name


def test_empty_text_has_no_tokens():
    assert tokens.estimate_tokens("") == 0


def test_a_prompt_counts_each_message_on_its_own():
    assert tokens.estimate_prompt_tokens([SYSTEM, USER]) == (
        tokens.estimate_tokens(SYSTEM) + tokens.estimate_tokens(USER))


def test_usage_estimated_for_a_server_that_reports_none_uses_the_estimator():
    body = {"messages": [{"role": "system", "content": SYSTEM},
                         {"role": "user", "content": USER}]}
    usage = chat_chunks.estimate_usage(body, "A reply of some length.")
    assert usage.estimated is True
    assert usage.prompt_tokens == tokens.estimate_prompt_tokens([SYSTEM, USER])
    assert usage.completion_tokens == tokens.estimate_tokens("A reply of some length.")


def test_the_offline_model_reports_prompt_tokens_with_the_estimator():
    request = ChatRequest(model="offline", messages=[
        ChatMessage(role="system", content=SYSTEM), ChatMessage(role="user", content=USER)])

    async def finish() -> Finish:
        items = [i async for i in OfflineClient(delay_s=0, policies=OfflinePolicies())
                 .stream(request)]
        assert isinstance(items[-1], Finish)
        return items[-1]

    assert asyncio.run(finish()).usage.prompt_tokens == \
        tokens.estimate_prompt_tokens([SYSTEM, USER])


def test_no_module_keeps_its_own_characters_per_token_arithmetic():
    for module in (context_tokens, chat_chunks, offline):
        assert "+ 3) // 4" not in inspect.getsource(module)
