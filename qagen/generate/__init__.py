"""Question generation: LLM request planning, reply conversion and the offline extractive generator.

- :func:`qagen.generate.extractive.generate_extractive` — items with no model (the default).
- :func:`qagen.generate.requests.plan_requests` and
  :func:`qagen.generate.replies.items_from_results` — the LLM path around the engine.
- :func:`qagen.generate.entities.extract_entities` / ``normalize_entity`` — phone numbers,
  e-mail addresses and URLs, shared with the filter stage.

Importing this package is light (no phonenumbers, no model libraries).
"""

from qagen.generate.context import GenerationContext, SectionPlace, item_id

__all__ = ["GenerationContext", "SectionPlace", "item_id"]
