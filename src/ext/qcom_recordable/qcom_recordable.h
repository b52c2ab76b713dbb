/* src/ext/qcom_recordable/ — cl_qcom_recordable_queues. Not implemented yet: nothing here is
 * built or advertised until its issue is done. It will talk to the core only through
 * src/runtime/'s internal headers and hooks (see docs/architecture.md). */
#ifndef KILN_EXT_QCOM_RECORDABLE_H
#define KILN_EXT_QCOM_RECORDABLE_H
#endif
