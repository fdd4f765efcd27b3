"""Skills: discover SKILL.md files under the skill roots, decide which are eligible, and list them
within the skills budget."""
