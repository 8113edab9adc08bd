"""The application layer: one module per command, the typed Python API that the CLI calls.

* :mod:`qagen.commands.build` — :func:`~qagen.commands.build.build` (also ``qagen.build``):
  documents to dataset, through the stages of :mod:`qagen.stages` and the runner;
* :mod:`qagen.commands.review` — :func:`~qagen.commands.review.export_review`,
  :func:`~qagen.commands.review.import_review`: the expert-review round trip;
* :mod:`qagen.commands.score` — :func:`~qagen.commands.score.score_command`: score a chatbot's
  answers, write the scores, refresh the report;
* :mod:`qagen.commands.sweep` — :func:`~qagen.commands.sweep.sweep_folder`: a BERTopic sweep
  over a folder's sections;
* :mod:`qagen.commands.export` — :func:`~qagen.commands.export.export`: the splits in Ragas,
  DeepEval, Hugging Face or CSV field names;
* :mod:`qagen.commands.inspect` — :func:`~qagen.commands.inspect.inspect_dir`: what a build holds.
* :mod:`qagen.commands.report` — :func:`~qagen.commands.report.rerender_report`: the report again
  after ``score`` or ``review import`` changed what it shows, unless a build holds the folder.

Commands open an output folder through :class:`qagen.output.OutputFolder` (artifact paths,
manifest, lock) and call the domain packages (``qagen.ingest``, ``qagen.topics``, ``qagen.folds``,
``qagen.generate``, ``qagen.filters``, ``qagen.splits``, ``qagen.score``, ``qagen.review``,
``qagen.report``), which never import this layer. Importing this package imports no command.
"""
