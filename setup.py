"""Packaging glue that pyproject.toml cannot express: prompts/ ships as qagen/prompts."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["qagen", "qagen.*"]), "qagen.prompts"],
    package_dir={"qagen.prompts": "prompts"},
)
