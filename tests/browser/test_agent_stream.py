"""An agent in the builder, in a real JupyterLab page: abandoned tokens leave the screen."""

from __future__ import annotations

AGENT = '''
import asyncio
from graphnb.agent import ModelServerError, ReActAgent, RetryPolicy
from graphnb.widget import Builder

from graphnb.agent import ModelReply

class BreaksMidway:
    """Streams a few words slowly, then its connection breaks; answers when called again."""

    name = "breaks-midway"
    calls = 0

    async def complete(self, messages, *, tools=(), on_token=None):
        self.calls += 1
        if self.calls > 1:
            on_token("Sunny.")
            return ModelReply("Sunny.")
        for word in ("Half ", "an ", "answer "):
            on_token(word)
            await asyncio.sleep(0.4)
        await asyncio.sleep(1.0)
        raise ModelServerError("the stream broke", model=self.name, status=502)

agent = ReActAgent(BreaksMidway(), retry=RetryPolicy(max_attempts=2, base_delay=0.01))
builder = Builder(agent.compiled)
builder
'''


def test_tokens_an_agent_abandons_leave_the_screen_for_the_retry_s_answer(lab):
    # The answer is shorter than the abandoned text: only the chunks_replaced message, not
    # the run_state snapshot (which the front end takes only when it holds more text),
    # can take the abandoned words off the screen.
    kernel = lab.open_notebook("agent", [AGENT])
    lab.builder()
    page = lab.page
    lab.side(page.get_by_test_id("run-input-json")).fill('{"prompt": "Weather?"}')
    page.get_by_test_id("toolbar-run").click()
    page.wait_for_function(
        """() => document.querySelector('[data-testid="run-chunks"]')
            ?.textContent.includes('Half an')""",
        timeout=15_000,
    )
    page.wait_for_function(
        """() => /done/i.test(document.querySelector('[data-testid="run-status"]').textContent)""",
        timeout=30_000,
    )
    assert page.get_by_test_id("run-chunks").inner_text().strip() == "Sunny."
    assert kernel.json("builder.last_run['chunks']") == "Sunny."
    lab.assert_no_js_errors()
