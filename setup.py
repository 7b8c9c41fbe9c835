from pathlib import Path

from setuptools import find_packages, setup

# The long description is optional: scrapyd-deploy runs `python setup.py bdist_egg` from any
# checkout or copy of the project, and an sdist carries README.md only through MANIFEST.in.
README = Path(__file__).resolve().parent / "README.md"

setup(
    name="newsforagers",
    version="0.1.0",
    description="A self-organising colony of Scrapy crawlers that finds breaking news sooner "
    "and with fewer requests (Palotai, Mandusitz & Lőrincz news foragers).",
    long_description=README.read_text(encoding="utf-8") if README.is_file() else "",
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=find_packages(exclude=("tests", "tests.*", "benchmarks")),
    # The dashboard's templates and static files are data of the package `newsforagers.web`,
    # named here rather than taken from MANIFEST.in (`include_package_data`): setuptools reads
    # a data directory found that way as a package left out of `packages` and warns so for
    # every file of it, at each install, editable or not.
    package_data={"newsforagers.web": ["templates/*.html", "static/*.js", "static/*.css"]},
    install_requires=[
        "scrapy>=2.13",
        "twisted>=24.7",
        "numpy>=1.26",
        "scipy>=1.11",
        "scikit-learn>=1.4",
        "itemadapter>=0.8",
        "htmldate>=1.9",
        "trafilatura>=2.0",
        "py3langid>=0.3",
        "feedparser>=6.0",
        "joblib>=1.3",
        "lxml>=5",
        # justext (trafilatura's) asks for `lxml[html_clean]`, which lxml's metadata now spells
        # `html-clean`: the pip of Python 3.11's venv (23.2) does not match the two, installs
        # no cleaner, and the forager fails at import
        "lxml_html_clean>=0.4",
        "markdown>=3.5",
    ],
    extras_require={
        "redis": ["redis>=5"],
        "scrapyd": ["scrapyd>=1.5", "scrapyd-client>=2"],
        "plots": ["matplotlib>=3.8"],
        "status": ["rich>=13"],
        "web": ["flask>=3", "matplotlib>=3.8"],
        "test": ["pytest>=8", "pytest-timeout>=2.3", "pytest-xdist>=3.5", "import-linter>=2.1", "ruff>=0.6",
                 "fakeredis[lua]>=2.20",
                 "selenium>=4.11"],
    },
    entry_points={
        "console_scripts": ["newsforagers=newsforagers.cli:main"],
        # the project's settings module for scrapyd (its runner reads it from an egg deployed
        # with scrapyd-deploy, and refuses an egg without it)
        "scrapy": ["settings = newsforagers.settings"],
        "scrapy.commands": [],
    },
    classifiers=[
        "Framework :: Scrapy",
        "Programming Language :: Python :: 3.11",
    ],
)
