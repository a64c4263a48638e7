// The server facade's answers (metadata, statistics, repository index) as the protocol's messages (the client reads
// statistics back in client/grpc_client_codec.h). Pure functions, unit-tested on their own.
#pragma once

#include <vector>

#include "client/grpc_service.pb.h"
#include "client/model_metadata.h"
#include "client/model_stats.h"
#include "serve/core/server.h"

namespace hone::serve::grpc_front {

void FillServerMetadata(const ServerMetadataInfo& info, inference::ServerMetadataResponse* message);
// Datatypes by their KServe names, shapes as given (-1 for a dynamic dimension).
void FillModelMetadata(const client::ModelMetadataInfo& info, inference::ModelMetadataResponse* message);
// Triton's statistics extension: version as a string, last_inference in ms, durations as count and ns, one
// batch_stats entry per executed batch size. (`pending` has no field in the protocol.)
void FillModelStatistics(const client::ModelStatsSnapshot& stats, inference::ModelStatistics* message);
void FillRepositoryIndex(const std::vector<RepositoryEntry>& entries, inference::RepositoryIndexResponse* message);

}  // namespace hone::serve::grpc_front
