/* pack.h - the engine's operand copies (pack.cu). */
#ifndef GL_ENGINE_PACK_H
#define GL_ENGINE_PACK_H

#include "engine.h"

/* Copies the operands the plan names into scratch (plan->bytes of it), in
 * one launch on x's stream, behind the kernel before it (engine.h), and
 * points *p at the copies, with K padded as planned. */
cudaError_t gl_engine_copy_operands(gl_problem *p, const gl_engine_plan *plan, void *scratch,
                                    const gl_exec *x);

#endif
