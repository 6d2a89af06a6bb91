"""FIG 2's live training as a shared service: worker processes, fair shares, slots and a line.

Modules, one idea each: `scene` (the display scene, checked once), `session` (one reader's
trainer in a worker), `scheduler` (fair shares of a worker's time), `worker` (the worker
process's loop), `pool` (the server's side of the workers), `capacity` (how many may train at
once, derived from the machine), `admission` (slots and the line), `service` (all of it for
one app). The socket that uses them is `attnlab.web.training_socket`.
"""
