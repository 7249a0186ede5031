"""Package setup for trn-compat: everything is read from settings.ini (nbdev 2 layout)."""
import shlex
from configparser import ConfigParser
from pathlib import Path

import setuptools

config = ConfigParser(delimiters=['='])
config.read('settings.ini', encoding='utf-8')
cfg = config['DEFAULT']

licenses = {'apache2': ('Apache Software License 2.0', 'OSI Approved :: Apache Software License')}
statuses = ['0 - Pre-Planning', '1 - Planning', '2 - Pre-Alpha', '3 - Alpha', '4 - Beta',
            '5 - Production/Stable', '6 - Mature', '7 - Inactive']
py_versions = '3.10 3.11 3.12 3.13'.split()
min_python = cfg['min_python']
lic = licenses[cfg['license']]

requirements = shlex.split(cfg.get('requirements', ''))
dev_requirements = shlex.split(cfg.get('dev_requirements', ''))
ray_requirements = shlex.split(cfg.get('ray_requirements', ''))   # `--engine ray`: pip install 'trn-compat[ray]'
console_scripts = [s for s in cfg.get('console_scripts', '').split() if s]

# The papermill template lives at the top of the repo (trn_notebooks/); installed copies carry it
# in share/trn-compat so that `trn-compat check` finds it outside a checkout too.
templates = [str(p) for p in sorted(Path('trn_notebooks').glob('*.ipynb'))]

setuptools.setup(
    name=cfg['repo'],
    license=lic[0],
    classifiers=['Development Status :: ' + statuses[int(cfg['status'])],
                 'Intended Audience :: ' + cfg['audience'].title(),
                 'License :: ' + lic[1],
                 'Natural Language :: ' + cfg['language'].title()]
               + ['Programming Language :: Python :: ' + v for v in py_versions[py_versions.index(min_python):]],
    url=cfg['git_url'],
    packages=setuptools.find_packages(include=['trn_compat', 'trn_compat.*']),
    include_package_data=True,
    package_data={'trn_compat': ['data/*.jsonl', 'data/*.json', 'data/*.toml']},
    install_requires=requirements,
    extras_require={'dev': dev_requirements + ray_requirements, 'ray': ray_requirements},
    data_files=[('share/trn-compat', templates)],
    python_requires='>=' + min_python,
    long_description=open('README.md', encoding='utf-8').read() if Path('README.md').exists() else cfg['description'],
    long_description_content_type='text/markdown',
    zip_safe=False,
    entry_points={'console_scripts': console_scripts, 'nbdev': [f'{cfg["lib_path"]}={cfg["lib_path"]}._modidx:d']},
    version=cfg['version'],
    description=cfg['description'],
    author=cfg['author'],
    author_email=cfg['author_email'],
    keywords=cfg['keywords'],
)
