/* ptrace_backend.h — the ptrace sampler (sampler.h) behind the interface of both samplers
 * (sampling/backend.h): its context is the struct sampler of an attached or adopted target. */
#ifndef V8WALK_PTRACE_BACKEND_H
#define V8WALK_PTRACE_BACKEND_H

#include "../sampling/backend.h"
#include "sampler.h"

extern const struct sampler_backend_ops ptrace_backend_ops;

static inline struct sampler_backend ptrace_backend(struct sampler *s)
{
	return (struct sampler_backend){.ops = &ptrace_backend_ops, .ctx = s};
}

#endif
