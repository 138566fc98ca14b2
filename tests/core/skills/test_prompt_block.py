"""The system prompt's <available_skills> block."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from agent_tui.core.skills import Skill, SkillCatalog


def _skill(name: str, description: str, path: str = "/s/SKILL.md") -> Skill:
    return Skill(name, description, "SECRET BODY", Path(path), "project")


def test_no_skills_no_block():
    assert SkillCatalog().prompt_block() == ""


def test_the_block_names_describes_and_locates_each_skill_and_nothing_more():
    catalog = SkillCatalog([_skill("a-skill", 'Use <when> "x" & y', "/p/a&b/SKILL.md"),
                            _skill("b", "second")])
    block = catalog.prompt_block()
    assert "activate_skill(name)" in block
    assert "SECRET BODY" not in block
    xml = block[block.index("<available_skills>"):block.index("</available_skills>") + 19]
    root = ET.fromstring(xml)
    entries = [{child.tag: child.text for child in skill} for skill in root]
    assert entries == [
        {"name": "a-skill", "description": 'Use <when> "x" & y', "location": "/p/a&b/SKILL.md"},
        {"name": "b", "description": "second", "location": "/s/SKILL.md"}]


def test_get_and_names():
    catalog = SkillCatalog([_skill("a", "x"), _skill("b", "y")])
    assert catalog.get("b").description == "y" and catalog.get("c") is None
    assert catalog.names == ["a", "b"]
