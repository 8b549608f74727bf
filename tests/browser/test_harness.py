"""The harness itself, proven on a tiny inline anywidget.

When a widget test fails, this one tells whether JupyterLab, Chromium, the kernel link or
the widget manager is at fault rather than graphnb's widget.
"""

from __future__ import annotations

PROBE = '''
import anywidget, traitlets

class Probe(anywidget.AnyWidget):
    _esm = """
    export default {
      render({ model, el }) {
        const button = document.createElement("button");
        button.dataset.testid = "probe-button";
        const show = () => { button.textContent = `clicked ${model.get("count")}`; };
        button.addEventListener("click", () => {
          model.set("count", model.get("count") + 1);
          model.save_changes();
        });
        model.on("change:count", show);
        show();
        el.appendChild(button);
        return () => model.off("change:count", show);
      }
    };
    """
    count = traitlets.Int(0).tag(sync=True)

probe = Probe()
probe
'''


def test_clicks_in_a_widget_reach_python_and_python_updates_reach_the_page(lab):
    kernel = lab.open_notebook("harness", [PROBE])
    button = lab.page.get_by_test_id("probe-button")
    button.wait_for(state="visible")
    assert button.text_content() == "clicked 0"

    button.click()
    lab.wait_until(lambda: kernel.json("probe.count") == 1, message="click never reached Python")

    kernel.run("probe.count = 41")
    lab.page.get_by_text("clicked 41").wait_for()
    assert kernel.json("{'count': probe.count}") == {"count": 41}
    lab.assert_no_js_errors()


def test_a_javascript_error_in_the_page_is_reported(lab):
    lab.open_notebook("harness_error", ["print('ready')"])
    lab.page.evaluate("() => setTimeout(() => { throw new Error('boom from test'); }, 0)")
    lab.page.wait_for_timeout(200)
    assert any("boom from test" in error for error in lab.js_errors())
    # Handled here on purpose, so the fixture's own check does not fail this test.
    lab.console.clear()
