"""The workspace composer: plan every file a seat should have, then apply only if nothing diverged.

Plan first (chezmoi/terraform style): each artifact is ``PENDING`` (absent: to create), ``MATCH`` or
``DIVERGENT``; after provisioning, the files that run wrote are ``CREATED``. Apply writes only when
the whole plan — for one resident or the whole fleet — has no ``DIVERGENT`` artifact, so a seat is
never half-born and a drifted file is never silently repaired. Two residents whose fleet-owned files
are one file on disk (the same repo, or one repo a symlink to another) are DIVERGENT at plan time.
A DIVERGENT file whose owned keys are only absent carries an ``adoption`` (generators.adoption):
``apply_fleet(..., adopt=True)`` writes it; the report then says ``ADOPTED``. A script an earlier
seat-curator wrote (generators.prior_generations) is ``OUTDATED``, not DIVERGENT: apply writes this
version over it through the same guarded write as a repair, and the report says ``UPDATED``.
Bearer files are create-only and never read; fleet files compare on their owned projection (or
whole bytes for scripts). Unsafe paths (a symlinked segment, an escape from the trusted root, a file
where a directory should be) are DIVERGENT too.

The rooms: ``plan`` (statuses and the read-only plan), ``trusted_paths`` (the path safety walk),
``apply`` (provision and adoption writes) and ``aside`` (setting a DIVERGENT file aside).
"""

from generators.composer.apply import (apply_fleet, apply_plan, divergent_error,  # noqa: F401 (re-exported)
                                       remove_dead_temps_of, repair_file)
from generators.composer.aside import set_aside, utc_stamp  # noqa: F401 (re-exported)
from generators.composer.plan import (ADOPTED, CREATED, DIVERGENT, EMITTERS, KEPT, MATCH,  # noqa: F401 (re-exported)
                                      OUTDATED, OWNED_DIFFER, OWNED_MATCH, PENDING, REPAIRED, STATUSES, UPDATED,
                                      Artifact, ResidentPlan, emit_resident, plan_exit_code, plan_fleet, plan_resident)
from generators.composer.trusted_paths import path_problem  # noqa: F401 (re-exported)
from generators.artifact_status import ArtifactStatus  # noqa: F401 (re-exported)
from generators.emission import (CREATE_ONLY, FLEET, WHOLE_FILE, WHOLE_FILE_KEY,  # noqa: F401 (re-exported)
                                 EmittedFile)
from generators.projection import project  # noqa: F401 (re-exported)
