from setuptools import find_packages, setup

setup(
    name="newsforagers",
    version="0.1.0",
    description="A self-organising colony of Scrapy crawlers that finds breaking news sooner "
    "and with fewer requests (Palotai, Mandusitz & Lőrincz news foragers).",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    python_requires=">=3.11",
    packages=find_packages(exclude=("tests", "tests.*", "benchmarks")),
    include_package_data=True,
    install_requires=[
        "scrapy>=2.13",
        "twisted>=24.7",
        "numpy>=1.26",
        "scipy>=1.11",
        "scikit-learn>=1.4",
        "itemadapter>=0.8",
        "htmldate>=1.9",
        "joblib>=1.3",
        "lxml>=5",
        "markdown>=3.5",
    ],
    extras_require={
        "redis": ["redis>=5"],
        "scrapyd": ["scrapyd>=1.5", "scrapyd-client>=2"],
        "plots": ["matplotlib>=3.8"],
        "status": ["rich>=13"],
        "test": ["pytest>=8", "pytest-timeout>=2.3", "import-linter>=2.1"],
    },
    entry_points={
        "console_scripts": ["newsforagers=newsforagers.cli:main"],
        "scrapy.commands": [],
    },
    classifiers=[
        "Framework :: Scrapy",
        "Programming Language :: Python :: 3.11",
    ],
)
