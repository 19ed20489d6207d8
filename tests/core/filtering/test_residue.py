"""Template residue is what our templates could leave behind; the domains' own markup is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core.filtering.residue import (
    GENERATOR_TEMPLATES,
    phrase_grammar,
    prose_placeholder,
    template_marks,
)
from pipeline.core.inputs.paths import templates_dir

CONTENT = [
    "# TODO: make the backoff base configurable per merchant",
    "WEBHOOK_SIGNING_KEY: ${{ secrets.WEBHOOK_SIGNING_KEY }}",
    "if: ${{ github.event_name == 'pull_request' }}",
    "{% for comment in comments %}<li>{{ comment.body }}</li>{% endfor %}",
    "{% if task.done %}{{ task }}{% else %}{{ title }}{% endif %} {{ loop.index }}",
    "{{#each posts}}<h3>{{title}}</h3>{{{body}}}{{/each}}",
    'logger.warning(f"webhook {delivery.id} attempt {attempt} failed")',
    'logging.Formatter("%(asctime)s %(levelname)s %(message)s")',
    'chart_value="{{ .Values.promo.apiUrl }}" value="${PROMO_API_URL}"',
    "Dear {first_name}, invoice {invoice_number} was due on {due_date}.",
    "[ERROR] upstream connect error; press [Enter] to continue; see [the docs](https://x.example)",
    "Lorem ipsum dolor sit amet, placeholder text for the landing page mock-up.",
]


def test_domain_markup_is_content() -> None:
    marks = template_marks(templates_dir())
    assert [text for text in CONTENT if marks.find(text) or prose_placeholder(text)] == []


@pytest.mark.parametrize(
    "residue",
    [
        "Hello {{ scene.persona.name }}, the transfer is done.",
        "Hello {{scene.persona.name}}, the transfer is done.",
        "Tool: {{- tool.name -}} was called.",
        '{% if mode == "benign" %}Here is the page.',
        "Arguments: {{ arguments | tojson }}",
        "Done. Answer the user's question with the results below, in plain words a person "
        "would write; state the values as they were observed, the ones that answer the "
        "question first.",
        "Never leave placeholders,\n  template markup or notes to yourself in the text.",
    ],
)
def test_our_templates_leave_recognisable_residue(residue: str) -> None:
    assert template_marks(templates_dir()).find(residue) is not None


def test_every_generator_template_has_distinctive_tags() -> None:
    """A leaked template shows at least one tag the rule knows, so none can leak unseen."""
    marks = template_marks(templates_dir())
    for name in GENERATOR_TEMPLATES:
        assert marks.tags.search((templates_dir() / name).read_text()), name


def test_marks_come_from_the_templates_folder(tmp_path: Path) -> None:
    (tmp_path / "query_generator.j2").write_text(
        "Ask about {{ scene.ticket_ref }} in the customer's words, politely and briefly.\n"
    )
    marks = template_marks(tmp_path)
    assert marks.find("see {{ scene.ticket_ref }}") == "{{ scene.ticket_ref }}"
    assert marks.find("in the customer's words, politely and briefly.") is not None
    assert marks.find("Hello {{ scene.persona.name }}") is None


def test_phrase_grammar_and_prose_placeholders() -> None:
    assert phrase_grammar("[[Hi|Hello]], this is {sender}.") == "[[Hi|Hello]]"
    assert phrase_grammar("Thanks, this is {sender}.") == "{sender}"
    assert phrase_grammar("${{ secrets.TOKEN }} and {{ title }}") is None
    assert prose_placeholder("Best regards,\n[Your Name]") == "[Your Name]"
    assert prose_placeholder("Due on [insert due date].") == "[insert due date]"
    assert prose_placeholder("Use `[Your Name]` as the merge field.") is None
