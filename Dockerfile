# The explorer as a Hugging Face Space (SDK: docker, app_port: 7860). Set TRN_COMPAT_DATASET to the results dataset repo.
FROM python:3.11-slim
WORKDIR /app
COPY . .
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu && pip install --no-cache-dir .
ENV GRADIO_ANALYTICS_ENABLED=False HF_HUB_DISABLE_TELEMETRY=1
EXPOSE 7860
CMD ["python", "app.py"]
