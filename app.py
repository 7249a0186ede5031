"""The explorer as a Hugging Face Space (Docker SDK, port 7860), or `python app.py` anywhere.

TRN_COMPAT_DATASET=org/name shows a published results dataset (downloaded at start with
huggingface_hub); otherwise TRN_COMPAT_RESULTS (default ./results) is shown. TRN_COMPAT_CACHE_URL
names the shared compile cache in the fetch commands.
"""
import os

from trn_compat.explorer import create_app


def results_folder() -> str:
    "The result store to show."
    repo = os.environ.get('TRN_COMPAT_DATASET')
    if repo:   # real files in a folder of its own: the Hub cache's snapshot holds symbolic links, which the explorer refuses
        from huggingface_hub import snapshot_download
        from trn_compat.tiny import cache_dir
        return snapshot_download(repo, repo_type='dataset', local_dir=cache_dir()/'datasets'/repo.replace('/', '--'))
    return os.environ.get('TRN_COMPAT_RESULTS', 'results')


app = create_app(results_folder(), os.environ.get('TRN_COMPAT_CACHE_URL'))

if __name__ == '__main__':
    import uvicorn
    uvicorn.run(app, host='0.0.0.0', port=int(os.environ.get('PORT', '7860')))
